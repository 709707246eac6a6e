//! The `litmus` settings section (protocol contract): read from `initializationOptions` and
//! `workspace/configuration`, and turned into [`CheckOptions`].

use std::time::Duration;

use litmus_engine::{CheckOptions, EngineKind, Model};
use serde_json::Value;

#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub models: Vec<Model>,
    pub loop_bound: u32,
    /// Seconds; 0 = none.
    pub timeout: f64,
    pub engine: EngineKind,
    pub verify_on_save: bool,
    pub verify_on_change: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            models: Model::ALL.to_vec(),
            loop_bound: 8,
            timeout: 10.0,
            engine: EngineKind::Mcr,
            verify_on_save: true,
            verify_on_change: false,
        }
    }
}

impl Settings {
    /// Applies the keys present in `v` over `self`. Accepts the section itself (`{"models":..}`),
    /// a wrapper (`{"litmus": {..}}`) or dotted keys (`{"litmus.models": ..}`); ignores values of
    /// the wrong type rather than failing.
    pub fn merge(&mut self, v: &Value) {
        let Some(obj) = v.as_object() else { return };
        if let Some(inner) = obj.get("litmus") {
            self.merge(inner);
        }
        let get = |k: &str| obj.get(k).or_else(|| obj.get(&format!("litmus.{k}")));
        if let Some(ms) = get("models").and_then(Value::as_array) {
            let mut models: Vec<Model> = ms
                .iter()
                .filter_map(|m| m.as_str().and_then(Model::parse))
                .collect();
            models.sort();
            models.dedup();
            if !models.is_empty() {
                self.models = models;
            }
        }
        if let Some(n) = get("loopBound").and_then(Value::as_u64) {
            self.loop_bound = n.min(u32::MAX as u64) as u32;
        }
        if let Some(t) = get("timeout").and_then(Value::as_f64) {
            if t >= 0.0 && t.is_finite() {
                self.timeout = t;
            }
        }
        match get("engine").and_then(Value::as_str) {
            Some("mcr") => self.engine = EngineKind::Mcr,
            Some("exhaustive") => self.engine = EngineKind::Exhaustive,
            Some("dpor") => self.engine = EngineKind::Dpor,
            _ => {}
        }
        if let Some(b) = get("verifyOnSave").and_then(Value::as_bool) {
            self.verify_on_save = b;
        }
        if let Some(b) = get("verifyOnChange").and_then(Value::as_bool) {
            self.verify_on_change = b;
        }
    }

    pub fn check_options(&self) -> CheckOptions {
        CheckOptions {
            engine: self.engine,
            sdg: true,
            loop_bound: self.loop_bound,
            timeout: (self.timeout > 0.0).then(|| Duration::from_secs_f64(self.timeout)),
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
        assert_eq!(s.check_options().timeout, None);
        assert_eq!(s.engine, EngineKind::Exhaustive);
        assert!(s.verify_on_change);
        s.merge(&json!({"models": "tso", "loopBound": -1, "engine": 3}));
        assert_eq!(s.models, vec![Model::Sc, Model::Tso]);
        assert_eq!(s.loop_bound, 3);
        s.merge(&json!({"engine": "dpor"}));
        assert_eq!(s.check_options().engine, EngineKind::Dpor);
    }
}
