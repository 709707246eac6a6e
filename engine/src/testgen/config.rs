//! The generator's settings: sizes, features and the weights of statement kinds.

/// How often each statement kind is drawn (relative weights; 0 never).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Weights {
    /// `x = e;`, `a[i] = e;`
    pub store: u64,
    /// `r = x;`, `r = a[i];`, `r = x + y;`, `r = x && y;`, `r = 2 / r;`, register arithmetic
    pub load: u64,
    pub fence: u64,
    /// `xchg`, `cas`, `fetch_add`, with a register or bare, on a scalar or an array element
    pub rmw: u64,
    /// `lock(m); [lock(n);] ... unlock(..); [unlock(..);]`: one or two mutexes in either
    /// order, released in either order (needs [`GenConfig::mutexes`])
    pub lock: u64,
    pub await_: u64,
    pub assume: u64,
    pub assert: u64,
    /// `if`, `if`/`else`, `if`/`else if`
    pub branch: u64,
    /// `while (i < n) { ...; i = i + 1; }`
    pub while_reg: u64,
    /// `while (x == 0) { ... }`
    pub while_mem: u64,
    /// A spin loop with side-effect-free ways round (`ir::spin`): `while (x == 0) {}`,
    /// `while (x != 1) { if (y == 1) { ... } }`, with `assert`s and `assume`s in between
    pub while_spin: u64,
}

/// What [`random_test_with`] generates: sizes, features and the weights of statement kinds.
/// The named settings are [`GenConfig::plain`] (the default), [`GenConfig::all`] (the whole
/// language) and [`GenConfig::lock_order`] (two mutexes in either order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenConfig {
    /// Fewest and most threads (2-4).
    pub threads: (usize, usize),
    /// Most top-level statements per thread (one fewer with four threads).
    pub stmts: usize,
    /// Percent of programs that declare mutexes.
    pub mutex_chance: u64,
    /// How many mutexes such a program declares (1 or 2).
    pub mutexes: usize,
    /// An array `a[2]` beside the scalars.
    pub arrays: bool,
    /// Runtime errors: divisions by registers, array indexes from registers, a mutex locked
    /// twice or unlocked without being held.
    pub errors: bool,
    /// Percent of programs with a final condition.
    pub condition_chance: u64,
    pub weights: Weights,
}

impl Default for GenConfig {
    fn default() -> GenConfig {
        GenConfig::plain()
    }
}

impl GenConfig {
    /// Stores, loads, fences, RMWs, branches, assertions, now and then an `assume`, a loop or
    /// one mutex around one statement; no arrays, awaits or runtime errors.
    pub fn plain() -> GenConfig {
        GenConfig {
            threads: (2, 4),
            stmts: 4,
            mutex_chance: 15,
            mutexes: 1,
            arrays: false,
            errors: false,
            condition_chance: 85,
            weights: Weights {
                store: 35,
                load: 30,
                fence: 7,
                rmw: 8,
                lock: 4,
                await_: 0,
                assume: 2,
                assert: 5,
                branch: 9,
                while_reg: 1,
                while_mem: 2,
                while_spin: 0,
            },
        }
    }

    /// Every construct of the native language: arrays, runtime errors, awaits, two mutexes in
    /// either order (so deadlocks), loops over registers and over memory, every RMW, every
    /// kind of condition.
    pub fn all() -> GenConfig {
        GenConfig {
            threads: (2, 4),
            stmts: 4,
            mutex_chance: 45,
            mutexes: 2,
            arrays: true,
            errors: true,
            condition_chance: 90,
            weights: Weights {
                store: 24,
                load: 22,
                fence: 5,
                rmw: 9,
                lock: 14,
                await_: 3,
                assume: 2,
                assert: 6,
                branch: 8,
                while_reg: 3,
                while_mem: 3,
                while_spin: 0,
            },
        }
    }

    /// The shape of issue 39: 2-3 threads, two mutexes taken in either order (inversions, so
    /// deadlocks) around stores, loads, RMWs and awaits, short loops, assumes and assertions.
    pub fn lock_order() -> GenConfig {
        GenConfig {
            threads: (2, 3),
            stmts: 3,
            mutex_chance: 100,
            mutexes: 2,
            arrays: false,
            errors: false,
            condition_chance: 90,
            weights: Weights {
                store: 12,
                load: 12,
                fence: 0,
                rmw: 8,
                lock: 32,
                await_: 4,
                assume: 5,
                assert: 10,
                branch: 5,
                while_reg: 5,
                while_mem: 4,
                while_spin: 0,
            },
        }
    }

    /// [`GenConfig::all`] with spin loops (`Weights::while_spin`), for the reduction of
    /// `ir::spin`.
    pub fn spins() -> GenConfig {
        let mut c = GenConfig::all();
        c.weights.while_spin = 6;
        c
    }

    /// The shape of issue 58's AwaitBlowup: three threads around one mutex, `await`s, RMWs
    /// (`cas`, `fetch_add`, `xchg`), stores and loads in short register loops and locked
    /// sections, over two or three cells: where DPOR's `await` rule (failing rounds not run,
    /// `docs/design/dpor.md#await`) and its lock races meet.
    pub fn awaits() -> GenConfig {
        GenConfig {
            threads: (3, 3),
            stmts: 3,
            mutex_chance: 100,
            mutexes: 1,
            arrays: false,
            errors: false,
            condition_chance: 50,
            weights: Weights {
                store: 14,
                load: 10,
                fence: 2,
                rmw: 12,
                lock: 14,
                await_: 12,
                assume: 2,
                assert: 8,
                branch: 3,
                while_reg: 10,
                while_mem: 0,
                while_spin: 0,
            },
        }
    }
}
