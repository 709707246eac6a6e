//! The `litmus` settings section (protocol contract): read from `initializationOptions` and
//! `workspace/configuration`, and turned into [`CheckOptions`].

use std::time::Duration;

use litmus_engine::{CheckOptions, EngineChoice, Model};
use serde_json::Value;

#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub models: Vec<Model>,
    pub loop_bound: u32,
    /// Seconds; 0 = none.
    pub timeout: f64,
    pub engine: EngineChoice,
    pub verify_on_save: bool,
    pub verify_on_change: bool,
    /// `unbounded: "onSave"`: a save checks for every iteration (`server::unbounded`) in
    /// place of the bounded check; `"off"`: only the `litmus.verifyUnbounded` command does.
    pub unbounded_on_save: bool,
    /// The process's memory budget in MiB (`None`: [`crate::memory::server_check_budget`] per check).
    pub max_memory: Option<u64>,
    /// How many checks may run at once (`None`: one per core).
    pub max_jobs: Option<usize>,
}

/// The largest `timeout` accepted (seconds): a year.
pub const MAX_TIMEOUT: f64 = 365.0 * 24.0 * 3600.0;
/// The largest `loopBound` accepted.
pub const MAX_LOOP_BOUND: u64 = 1_000_000;
/// The largest `maxMemory` accepted (MiB): 1 TiB.
pub const MAX_MEMORY_MIB: u64 = 1 << 20;
/// The largest `maxJobs` accepted.
pub const MAX_JOBS: u64 = 256;

impl Default for Settings {
    fn default() -> Self {
        Settings {
            models: Model::ALL.to_vec(),
            loop_bound: 8,
            timeout: 10.0,
            engine: EngineChoice::Auto,
            verify_on_save: true,
            verify_on_change: false,
            unbounded_on_save: false,
            max_memory: None,
            max_jobs: None,
        }
    }
}

impl Settings {
    /// Applies the keys present in `v` over `self`. Accepts the section itself (`{"models":..}`),
    /// a wrapper (`{"litmus": {..}}`) or dotted keys (`{"litmus.models": ..}`). A value of the
    /// wrong type or out of range leaves the setting at its default; the returned messages say
    /// which (the server shows them with `window/showMessage`).
    pub fn merge(&mut self, v: &Value) -> Vec<String> {
        let mut warnings = Vec::new();
        self.merge_into(v, &mut warnings);
        warnings
    }

    fn merge_into(&mut self, v: &Value, warnings: &mut Vec<String>) {
        let Some(obj) = v.as_object() else { return };
        if let Some(inner) = obj.get("litmus") {
            self.merge_into(inner, warnings);
        }
        let get = |k: &str| obj.get(k).or_else(|| obj.get(&format!("litmus.{k}")));
        let defaults = Settings::default();
        let bad = |warnings: &mut Vec<String>, k: &str, v: &Value, want: &str, default: String| {
            warnings.push(format!(
                "litmus.{k}: {v} is not {want}; using the default ({default})"
            ))
        };
        if let Some(v) = get("models") {
            let items = v.as_array().map(Vec::as_slice).unwrap_or_default();
            let mut models: Vec<Model> = items
                .iter()
                .filter_map(|m| m.as_str().and_then(Model::parse))
                .collect();
            models.sort();
            models.dedup();
            if models.is_empty() {
                bad(
                    warnings,
                    "models",
                    v,
                    "a non-empty list of \"sc\", \"tso\", \"pso\"",
                    "all three".into(),
                );
                self.models = defaults.models.clone();
            } else {
                if models.len() < items.len() {
                    warnings.push(format!("litmus.models: unknown models in {v} are ignored"));
                }
                self.models = models;
            }
        }
        if let Some(v) = get("loopBound") {
            match v.as_u64().filter(|&n| n <= MAX_LOOP_BOUND) {
                Some(n) => self.loop_bound = n as u32,
                None => {
                    bad(
                        warnings,
                        "loopBound",
                        v,
                        &format!("an integer from 0 to {MAX_LOOP_BOUND}"),
                        defaults.loop_bound.to_string(),
                    );
                    self.loop_bound = defaults.loop_bound;
                }
            }
        }
        if let Some(v) = get("timeout") {
            match v
                .as_f64()
                .filter(|t| t.is_finite() && (0.0..=MAX_TIMEOUT).contains(t))
            {
                Some(t) => self.timeout = t,
                None => {
                    bad(
                        warnings,
                        "timeout",
                        v,
                        &format!("a number of seconds from 0 (none) to {MAX_TIMEOUT}"),
                        defaults.timeout.to_string(),
                    );
                    self.timeout = defaults.timeout;
                }
            }
        }
        if let Some(v) = get("engine") {
            match v.as_str().and_then(EngineChoice::parse) {
                Some(e) => self.engine = e,
                None => {
                    let names: Vec<String> =
                        EngineChoice::names().map(|n| format!("\"{n}\"")).collect();
                    let (last, rest) = names.split_last().expect("engines have names");
                    let want = format!("{} or {last}", rest.join(", "));
                    bad(warnings, "engine", v, &want, "auto".into());
                    self.engine = defaults.engine;
                }
            }
        }
        if let Some(v) = get("verifyOnSave") {
            match v.as_bool() {
                Some(b) => self.verify_on_save = b,
                None => bad(warnings, "verifyOnSave", v, "true or false", "true".into()),
            }
        }
        if let Some(v) = get("verifyOnChange") {
            match v.as_bool() {
                Some(b) => self.verify_on_change = b,
                None => bad(
                    warnings,
                    "verifyOnChange",
                    v,
                    "true or false",
                    "false".into(),
                ),
            }
        }
        if let Some(v) = get("unbounded") {
            match v.as_str() {
                Some("off") => self.unbounded_on_save = false,
                Some("onSave") => self.unbounded_on_save = true,
                _ => {
                    bad(
                        warnings,
                        "unbounded",
                        v,
                        "\"off\" or \"onSave\"",
                        "off".into(),
                    );
                    self.unbounded_on_save = false;
                }
            }
        }
        if let Some(v) = get("maxMemory") {
            match v.as_u64().filter(|&n| n <= MAX_MEMORY_MIB) {
                Some(0) => self.max_memory = None,
                Some(n) => self.max_memory = Some(n),
                None => {
                    bad(
                        warnings,
                        "maxMemory",
                        v,
                        &format!("a number of MiB from 0 (the default) to {MAX_MEMORY_MIB}"),
                        "a share of the machine".into(),
                    );
                    self.max_memory = None;
                }
            }
        }
        if let Some(v) = get("maxJobs") {
            match v.as_u64().filter(|&n| n <= MAX_JOBS) {
                Some(0) => self.max_jobs = None,
                Some(n) => self.max_jobs = Some(n as usize),
                None => {
                    bad(
                        warnings,
                        "maxJobs",
                        v,
                        &format!("an integer from 0 (one per core) to {MAX_JOBS}"),
                        "one per core".into(),
                    );
                    self.max_jobs = None;
                }
            }
        }
    }

    pub fn check_options(&self) -> CheckOptions {
        CheckOptions {
            engine: self.engine,
            sdg: true,
            loop_bound: self.loop_bound,
            timeout: (self.timeout > 0.0)
                .then(|| Duration::try_from_secs_f64(self.timeout).ok())
                .flatten(),
            first: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merges_nested_flat_and_dotted_forms() {
        let mut s = Settings::default();
        s.merge(&json!({"litmus": {"models": ["tso", "sc", "bogus"], "loopBound": 3}}));
        assert_eq!(s.models, vec![Model::Sc, Model::Tso]);
        assert_eq!(s.loop_bound, 3);
        s.merge(&json!({"timeout": 0, "engine": "exhaustive", "litmus.verifyOnChange": true}));
        assert!(!s.unbounded_on_save);
        s.merge(&json!({"litmus": {"unbounded": "onSave"}}));
        assert!(s.unbounded_on_save);
        assert_eq!(s.check_options().timeout, None);
        assert_eq!(s.engine, litmus_engine::EngineKind::Exhaustive.into());
        assert!(s.verify_on_change);
        let w = s.merge(&json!({"models": "tso", "loopBound": -1, "engine": 3}));
        assert_eq!(w.len(), 3, "{w:?}");
        assert_eq!(s.models, Model::ALL.to_vec());
        assert_eq!(s.loop_bound, 8);
        assert_eq!(s.engine, EngineChoice::Auto);
    }

    #[test]
    fn out_of_range_values_warn_and_fall_back_to_the_default() {
        for bad in [
            json!({"litmus": {"timeout": 1e300}}),
            json!({"timeout": -1}),
            json!({"litmus.timeout": "soon"}),
            json!({"loopBound": 1e12}),
            json!({"maxMemory": -5}),
            json!({"maxJobs": 100000}),
            json!({"models": []}),
            json!({"unbounded": true}),
            json!({"litmus.unbounded": "always"}),
        ] {
            let mut s = Settings::default();
            let w = s.merge(&bad);
            assert_eq!(w.len(), 1, "{bad}: {w:?}");
            assert!(w[0].contains("using the default"), "{w:?}");
            assert_eq!(s, Settings::default(), "{bad}");
            let _ = s.check_options();
        }
        let mut s = Settings::default();
        assert!(s
            .merge(&json!({"timeout": 31536000.0, "maxMemory": 512, "maxJobs": 2}))
            .is_empty());
        assert_eq!((s.max_memory, s.max_jobs), (Some(512), Some(2)));
        s.merge(&json!({"engine": "dpor"}));
        assert_eq!(
            s.check_options().engine,
            litmus_engine::EngineKind::Dpor.into()
        );
    }
}
