//! The memory the process may use: physical memory, its own cgroup's limit (v1 or v2, every
//! ancestor of its cgroup included) and its `RLIMIT_AS` and `RLIMIT_DATA`. The default memory
//! budgets ([`crate::memory::default_of`]) take a share of the smallest.
//!
//! Half, because the budget counts the Rust heap (and Z3's own estimate), not the address space:
//! thread stacks, the allocator's arenas and unused capacity, the binary and its libraries are
//! not counted, and a budget equal to an address-space limit still ends in an aborted
//! allocation before the budget is reached.
//!
//! `/proc/self/cgroup` and `/proc/self/mountinfo` are parsed by `procfs-core`; what is done with
//! them (where the process's cgroup directory is, which file holds its limit, what "no limit"
//! looks like) is here, as functions of the files' text so tests run them on fixtures.

use std::path::{Path, PathBuf};

use procfs_core::process::MountInfos;
use procfs_core::{FromRead, ProcessCGroups};

/// One limit on the process's memory: the bytes it leaves the process, and what it is, for the
/// user ("RLIMIT_AS 3 GiB less 310 MiB mapped at start", "cgroup memory.max 2 GiB of
/// /sys/fs/cgroup/x").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limit {
    pub bytes: u64,
    pub what: String,
}

/// The cgroup versions, by the file that holds a group's memory limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    /// `memory.limit_in_bytes` in the `memory` controller's hierarchy.
    V1,
    /// `memory.max` in the unified hierarchy.
    V2,
}

impl Version {
    fn file(self) -> &'static str {
        match self {
            Version::V1 => "memory.limit_in_bytes",
            Version::V2 => "memory.max",
        }
    }
}

/// v1 writes "no limit" as the largest page count times the page size (9223372036854771712 with
/// 4 KiB pages): anything from 2^62 on is taken as none.
const V1_UNLIMITED: u64 = 1 << 62;

/// The limit a cgroup's limit file states (`None`: no limit, or not a limit).
pub fn parse_limit(version: Version, text: &str) -> Option<u64> {
    let t = text.trim();
    match version {
        Version::V2 if t == "max" => None,
        _ => t.parse::<u64>().ok().filter(|&b| b < V1_UNLIMITED),
    }
}

/// The directories of the process's memory cgroups, each with its ancestors up to its
/// hierarchy's mount point (innermost first), from the text of `/proc/self/cgroup` and
/// `/proc/self/mountinfo`. Both versions are listed on a hybrid system.
pub fn cgroup_dirs(proc_cgroup: &str, mountinfo: &str) -> Vec<(Version, Vec<PathBuf>)> {
    let (Ok(groups), Ok(mounts)) = (
        ProcessCGroups::from_read(proc_cgroup.as_bytes()),
        MountInfos::from_read(mountinfo.as_bytes()),
    ) else {
        return vec![];
    };
    let mut out = Vec::new();
    for g in &groups {
        let version = if g.hierarchy == 0 && g.controllers.is_empty() {
            Version::V2
        } else if g.controllers.iter().any(|c| c == "memory") {
            Version::V1
        } else {
            continue;
        };
        let mount = mounts.iter().find(|m| match version {
            Version::V2 => m.fs_type == "cgroup2",
            Version::V1 => m.fs_type == "cgroup" && m.super_options.contains_key("memory"),
        });
        let Some(mount) = mount else { continue };
        // The path is relative to the hierarchy's root; the mount shows the hierarchy from
        // `mount.root` on (a container sees its own group as `/`). A group outside what is
        // mounted (`/../..` in a cgroup namespace) leaves only the mount point to read.
        let rel = Path::new(&g.pathname)
            .strip_prefix(&mount.root)
            .ok()
            .filter(|r| !r.components().any(|c| c == std::path::Component::ParentDir));
        let top = mount.mount_point.clone();
        let mut dirs = Vec::new();
        if let Some(rel) = rel {
            let mut d = top.join(rel);
            while d.starts_with(&top) && d != top {
                dirs.push(d.clone());
                if !d.pop() {
                    break;
                }
            }
        }
        dirs.push(top);
        out.push((version, dirs));
    }
    out
}

/// The smallest limit of the process's memory cgroups and their ancestors; `read` reads a file.
pub fn cgroup_limit(
    proc_cgroup: &str,
    mountinfo: &str,
    read: impl Fn(&Path) -> Option<String>,
) -> Option<Limit> {
    let mut best: Option<Limit> = None;
    for (version, dirs) in cgroup_dirs(proc_cgroup, mountinfo) {
        for d in dirs {
            let file = d.join(version.file());
            let Some(bytes) = read(&file).and_then(|t| parse_limit(version, &t)) else {
                continue;
            };
            if best.as_ref().is_none_or(|b| bytes < b.bytes) {
                best = Some(Limit {
                    bytes,
                    what: format!(
                        "cgroup {} {} of {}",
                        version.file(),
                        litmus_engine::human_bytes(bytes),
                        d.display()
                    ),
                });
            }
        }
    }
    best
}

/// A resource limit's soft value, read by `get` (`None`: unlimited or unreadable).
fn soft(get: impl FnOnce(*mut libc::rlimit) -> libc::c_int) -> Option<u64> {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    let ok = get(&mut r) == 0;
    // `rlim_t` is `u64` here, not on every target.
    #[allow(clippy::unnecessary_cast)]
    (ok && r.rlim_cur != libc::RLIM_INFINITY).then_some(r.rlim_cur as u64)
}

/// Physical memory, in bytes.
fn physical() -> Option<u64> {
    // SAFETY: `sysconf` only reads system values.
    let (pages, size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    (pages > 0 && size > 0).then(|| (pages as u64).saturating_mul(size as u64))
}

/// What the process has mapped now, in bytes: its address space (`VmSize`) and its data
/// (`VmData`, what `RLIMIT_DATA` counts).
fn mapped() -> (Option<u64>, Option<u64>) {
    use procfs_core::process::Status;
    match std::fs::read("/proc/self/status").map(|t| Status::from_read(&t[..])) {
        Ok(Ok(s)) => (s.vmsize.map(|k| k << 10), s.vmdata.map(|k| k << 10)),
        _ => (None, None),
    }
}

/// A resource limit of `bytes` of which `in_use` are taken already (the binary, its libraries,
/// the stacks of its threads so far): what is left for the heap.
pub fn rlimit_left(name: &str, bytes: u64, in_use: Option<u64>) -> Limit {
    let human = litmus_engine::human_bytes;
    // Less than a MiB (`VmData` at start) is not worth the words.
    match in_use.filter(|&u| u >= 1 << 20) {
        Some(u) => Limit {
            bytes: bytes.saturating_sub(u),
            what: format!("{name} {} less {} mapped at start", human(bytes), human(u)),
        },
        None => Limit {
            bytes,
            what: format!("{name} {}", human(bytes)),
        },
    }
}

/// Every limit that applies to this process: physical memory, its cgroups', what `RLIMIT_AS`
/// and `RLIMIT_DATA` leave of what it maps now, whichever can be read. Call it at start, before
/// threads map their stacks and the allocator its arenas.
pub fn limits() -> Vec<Limit> {
    let mut out = Vec::new();
    if let Some(b) = physical() {
        out.push(Limit {
            bytes: b,
            what: format!("physical memory {}", litmus_engine::human_bytes(b)),
        });
    }
    let (vm, data) = mapped();
    // SAFETY: `getrlimit` writes one `rlimit` through the valid pointer `soft` gives it.
    if let Some(b) = soft(|r| unsafe { libc::getrlimit(libc::RLIMIT_AS, r) }) {
        out.push(rlimit_left("RLIMIT_AS", b, vm));
    }
    // SAFETY: as above.
    if let Some(b) = soft(|r| unsafe { libc::getrlimit(libc::RLIMIT_DATA, r) }) {
        out.push(rlimit_left("RLIMIT_DATA", b, data));
    }
    let read = |p: &Path| std::fs::read_to_string(p).ok();
    if let (Some(c), Some(m)) = (
        read(Path::new("/proc/self/cgroup")),
        read(Path::new("/proc/self/mountinfo")),
    ) {
        out.extend(cgroup_limit(&c, &m, read));
    }
    out
}

/// Whether `RLIMIT_AS` or `RLIMIT_DATA` limits the process.
pub fn rlimited() -> bool {
    // SAFETY: as in `limits`.
    soft(|r| unsafe { libc::getrlimit(libc::RLIMIT_AS, r) }).is_some()
        || soft(|r| unsafe { libc::getrlimit(libc::RLIMIT_DATA, r) }).is_some()
}

/// Under `RLIMIT_AS` or `RLIMIT_DATA`, makes glibc's allocator keep one arena for every
/// thread. Each thread otherwise gets an arena of its own (up to 8 per core), which reserves
/// 64 MiB of address space and keeps what its thread freed for that thread: the server's next
/// job, on another thread, then maps fresh memory while the last job's lies free elsewhere, and
/// 20 heavy documents under a 128 MiB data limit aborted with a 64 MiB budget. With one arena,
/// what one check frees the next one reuses; threads still allocate from their own caches
/// (glibc's tcache) first. Call it before any thread starts. Returns whether it did.
pub fn one_arena_under_rlimits() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if rlimited() {
        // SAFETY: `mallopt` sets an allocator parameter; no thread allocates concurrently yet.
        return unsafe { libc::mallopt(libc::M_ARENA_MAX, 1) } == 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// A cgroup v2 host seen from inside a container with its own cgroup namespace: the
    /// process's group is `/` in `/proc/self/cgroup`, the mount's root is `/`.
    const V2_MOUNTINFO: &str = "\
22 1 0:21 / / rw,relatime shared:1 - overlay overlay rw,lowerdir=/l,upperdir=/u,workdir=/w
30 22 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot
31 22 0:5 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw
";

    /// cgroup v1, as on this project's development machines: the memory controller mounted
    /// apart, the process in a nested group.
    const V1_MOUNTINFO: &str = "\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
";
    const V1_CGROUP: &str = "\
9:name=systemd:/
4:memory:/process_api/0b93ea
1:cpu:/
0::/
";

    fn files(entries: &[(&str, &str)]) -> impl Fn(&Path) -> Option<String> {
        let m: BTreeMap<PathBuf, String> = entries
            .iter()
            .map(|(p, t)| (PathBuf::from(p), t.to_string()))
            .collect();
        move |p: &Path| m.get(p).cloned()
    }

    #[test]
    fn limit_files_say_no_limit_in_their_own_way() {
        assert_eq!(parse_limit(Version::V2, "max\n"), None);
        assert_eq!(parse_limit(Version::V2, "3221225472\n"), Some(3 << 30));
        assert_eq!(parse_limit(Version::V1, "9223372036854771712\n"), None);
        assert_eq!(parse_limit(Version::V1, "1073741824\n"), Some(1 << 30));
        assert_eq!(parse_limit(Version::V1, "garbage"), None);
    }

    #[test]
    fn v2_nested_groups_give_the_smallest_limit_on_the_way_up() {
        let cg = "0::/user.slice/app.scope/litmus\n";
        let dirs = cgroup_dirs(cg, V2_MOUNTINFO);
        let want: Vec<PathBuf> = [
            "/sys/fs/cgroup/user.slice/app.scope/litmus",
            "/sys/fs/cgroup/user.slice/app.scope",
            "/sys/fs/cgroup/user.slice",
            "/sys/fs/cgroup",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        assert_eq!(dirs, vec![(Version::V2, want)]);
        let read = files(&[
            (
                "/sys/fs/cgroup/user.slice/app.scope/litmus/memory.max",
                "max\n",
            ),
            (
                "/sys/fs/cgroup/user.slice/app.scope/memory.max",
                "2147483648\n",
            ),
            ("/sys/fs/cgroup/user.slice/memory.max", "8589934592\n"),
        ]);
        let l = cgroup_limit(cg, V2_MOUNTINFO, read).unwrap();
        assert_eq!(l.bytes, 2 << 30);
        assert_eq!(
            l.what,
            "cgroup memory.max 2 GiB of /sys/fs/cgroup/user.slice/app.scope"
        );
    }

    #[test]
    fn v2_in_a_container_reads_the_mount_point() {
        let read = files(&[("/sys/fs/cgroup/memory.max", "1073741824")]);
        let l = cgroup_limit("0::/\n", V2_MOUNTINFO, read).unwrap();
        assert_eq!(l.bytes, 1 << 30);
        // A group outside the namespace's view: only the mount point is read.
        let dirs = cgroup_dirs("0::/../../other\n", V2_MOUNTINFO);
        assert_eq!(
            dirs,
            vec![(Version::V2, vec![PathBuf::from("/sys/fs/cgroup")])]
        );
    }

    #[test]
    fn v1_reads_the_memory_hierarchy_and_skips_unlimited_groups() {
        let read = files(&[
            (
                "/sys/fs/cgroup/memory/process_api/0b93ea/memory.limit_in_bytes",
                "9223372036854771712\n",
            ),
            (
                "/sys/fs/cgroup/memory/process_api/memory.limit_in_bytes",
                "4294967296\n",
            ),
            (
                "/sys/fs/cgroup/memory/memory.limit_in_bytes",
                "9223372036854771712\n",
            ),
            // The unified hierarchy of a hybrid system: its root has no memory.max.
        ]);
        let l = cgroup_limit(V1_CGROUP, V1_MOUNTINFO, read).unwrap();
        assert_eq!(l.bytes, 4 << 30);
        assert_eq!(
            l.what,
            "cgroup memory.limit_in_bytes 4 GiB of /sys/fs/cgroup/memory/process_api"
        );
    }

    #[test]
    fn v1_mounted_with_a_root_of_its_own() {
        // A container whose memory hierarchy is bind-mounted from the host's group /docker/abc.
        let mi = "40 31 0:32 /docker/abc /sys/fs/cgroup/memory ro - cgroup cgroup rw,memory\n";
        let cg = "4:memory:/docker/abc/inner\n";
        let read = files(&[
            (
                "/sys/fs/cgroup/memory/inner/memory.limit_in_bytes",
                "3221225472",
            ),
            ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "1073741824"),
        ]);
        assert_eq!(cgroup_limit(cg, mi, read).unwrap().bytes, 1 << 30);
    }

    #[test]
    fn hybrid_systems_take_the_smaller_of_both_versions() {
        let cg = "4:memory:/a\n0::/b\n";
        let read = files(&[
            (
                "/sys/fs/cgroup/memory/a/memory.limit_in_bytes",
                "3221225472",
            ),
            ("/sys/fs/cgroup/unified/b/memory.max", "2147483648"),
        ]);
        let l = cgroup_limit(cg, V1_MOUNTINFO, read).unwrap();
        assert_eq!(l.bytes, 2 << 30);
        assert!(l.what.contains("memory.max"), "{}", l.what);
    }

    #[test]
    fn no_cgroup_or_bad_text_gives_no_limit() {
        assert_eq!(cgroup_limit("", V2_MOUNTINFO, files(&[])), None);
        assert_eq!(
            cgroup_limit("not a cgroup file", "nor mountinfo", files(&[])),
            None
        );
        assert_eq!(cgroup_limit("0::/\n", V2_MOUNTINFO, files(&[])), None);
    }

    #[test]
    fn a_resource_limit_leaves_what_is_not_mapped_yet() {
        let l = rlimit_left("RLIMIT_AS", 3 << 30, Some(300 << 20));
        assert_eq!(l.bytes, (3 << 30) - (300 << 20));
        assert_eq!(l.what, "RLIMIT_AS 3 GiB less 300 MiB mapped at start");
        assert_eq!(
            rlimit_left("RLIMIT_DATA", 1 << 30, None).what,
            "RLIMIT_DATA 1 GiB"
        );
        // More mapped than the limit allows (a limit lowered by a running process): nothing left.
        assert_eq!(rlimit_left("RLIMIT_AS", 1 << 20, Some(2 << 20)).bytes, 0);
    }

    #[test]
    fn this_process_has_a_physical_memory_limit_at_least() {
        let all = limits();
        assert!(
            all.iter()
                .any(|l| l.what.starts_with("physical memory ") && l.bytes > 0),
            "{all:?}"
        );
    }
}
