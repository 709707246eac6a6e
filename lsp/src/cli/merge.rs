//! `litmus merge`: the JSON documents of `litmus check --json --shard K/N` runs, combined into
//! the document the unsharded run prints.
//!
//! Each shard's document says which shard it is (`"shard": {"index": K, "count": N, "files":
//! M}`) and each file's 1-based position in the whole argument list (`"index"`). The merge
//! checks that the shards make up one run (the same N and M, each K once, every position
//! once), puts the files back in argument order, and drops the shard keys, so its output is
//! byte for byte the unsharded run's, timings aside. The exit status is the unsharded run's,
//! read from the merged reports.
//!
//! Streamed, so memory does not grow with the documents: a first pass reads each document for
//! its header and its files' positions only (the rest is skipped unparsed) and checks that the
//! shards make up one run; a second pass reads every document at once, one reader thread per
//! document parsing and printing one file at a time into a small bounded channel, and the
//! main thread writes the files in position order. That needs each document's files in
//! increasing position, as `litmus check` writes them; a document that is not (edited by hand,
//! or with `files` twice) is merged in memory instead, with the same result. Standard input
//! (`-`) is read once into memory.

use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::mpsc;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::args::MergeArgs;
use super::{err, exit, json, out};

/// Files parsed ahead of the printer per document in the second pass.
const AHEAD: usize = 4;

/// Runs `litmus merge`; returns the exit status.
pub fn run(args: MergeArgs) -> i32 {
    let docs: Vec<Doc> = args.files.iter().map(|p| Doc::new(p)).collect();
    let scan = match scan(&docs) {
        Ok(s) => s,
        Err(e) => {
            err(&format!("litmus merge: {e}"));
            return exit::BAD_INPUT;
        }
    };
    if !scan.in_order {
        let doc = merge_in_memory(&docs);
        return match doc {
            Ok(doc) => {
                out(&format!("{doc:#}\n"));
                status(&doc)
            }
            Err(e) => {
                err(&format!("litmus merge: {e}"));
                exit::BAD_INPUT
            }
        };
    }
    stream(&docs, &scan)
}

/// One input document: a path, or standard input read once.
pub struct Doc {
    path: PathBuf,
    stdin: Option<Result<Vec<u8>, String>>,
}

impl Doc {
    fn new(path: &Path) -> Doc {
        let stdin = (path == Path::new("-")).then(|| {
            let mut b = Vec::new();
            std::io::stdin()
                .read_to_end(&mut b)
                .map(|_| b)
                .map_err(|e| format!("cannot read -: {e}"))
        });
        Doc {
            path: path.to_owned(),
            stdin,
        }
    }

    fn reader(&self) -> Result<Box<dyn Read + Send + '_>, String> {
        match &self.stdin {
            Some(b) => Ok(Box::new(b.as_ref().map_err(Clone::clone)?.as_slice())),
            None => std::fs::File::open(&self.path)
                .map(|f| Box::new(BufReader::with_capacity(1 << 16, f)) as Box<dyn Read + Send>)
                .map_err(|e| format!("cannot read {}: {e}", self.path.display())),
        }
    }

    /// Parses the whole document with `f`, as `serde_json::from_str` would (trailing
    /// characters are an error), and with its messages: a text that is not UTF-8 cannot be
    /// read, a text that is not JSON is not JSON.
    fn parse<T>(
        &self,
        f: impl FnOnce(
            &mut serde_json::Deserializer<serde_json::de::IoRead<&mut Utf8Checked<'_>>>,
        ) -> serde_json::Result<T>,
    ) -> Result<T, String> {
        let name = self.path.display().to_string();
        let mut r = Utf8Checked {
            inner: self.reader()?,
            tail: Vec::new(),
            invalid: false,
        };
        let mut de = serde_json::Deserializer::from_reader(&mut r);
        let v = f(&mut de).and_then(|v| de.end().map(|_| v));
        drop(de);
        if let Err(e) = v.as_ref() {
            // What the whole text would have said: not UTF-8 anywhere is a read error.
            if !r.invalid && !e.is_io() {
                let _ = std::io::copy(&mut r, &mut std::io::sink());
            }
            if r.invalid {
                return Err(format!(
                    "cannot read {name}: stream did not contain valid UTF-8"
                ));
            }
            if let Some(io) = e.io_error_kind() {
                return Err(format!("cannot read {name}: {}", std::io::Error::from(io)));
            }
        }
        v.map_err(|e| format!("{name} is not JSON: {e}"))
    }
}

/// A reader that checks its text is UTF-8 as it goes (`invalid` once it is not).
struct Utf8Checked<'a> {
    inner: Box<dyn Read + Send + 'a>,
    /// The last bytes read when they end inside a character.
    tail: Vec<u8>,
    invalid: bool,
}

impl Read for Utf8Checked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let bad = || std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8");
        if self.invalid {
            return Err(bad());
        }
        let n = self.inner.read(buf)?;
        let checked = if self.tail.is_empty() && n > 0 {
            std::str::from_utf8(&buf[..n])
                .map(|_| ())
                .map_err(|e| (e, &buf[..n]))
        } else {
            self.tail.extend_from_slice(&buf[..n]);
            std::str::from_utf8(&self.tail)
                .map(|_| ())
                .map_err(|e| (e, &self.tail[..]))
        };
        match checked {
            Ok(()) => self.tail.clear(),
            Err((e, text)) if e.error_len().is_none() && n > 0 => {
                self.tail = text[e.valid_up_to()..].to_vec();
            }
            Err(_) => {
                self.invalid = true;
                return Err(bad());
            }
        }
        Ok(n)
    }
}

/// What the first pass found: every document's files' positions, in document order.
struct Scan {
    /// The number of files of the whole run (M).
    files: u64,
    /// For each document, its files' positions in its order.
    positions: Vec<Vec<u64>>,
    /// Every document has its files in increasing position and `files` once.
    in_order: bool,
}

/// A document's header and its files' positions (`None`: a file without `index`).
#[derive(Default)]
struct Head {
    version: Value,
    shard: Value,
    files: Vec<Option<u64>>,
    /// How many times the document has a `files` key.
    files_keys: usize,
}

/// Checks that the shards make up one run, with the in-memory merge's messages in its order.
fn scan(docs: &[Doc]) -> Result<Scan, String> {
    let mut count_files: Option<(u64, u64)> = None;
    let mut seen_shards = std::collections::BTreeSet::new();
    let mut positions = vec![];
    let mut in_order = true;
    // Every document read at once, a thread each; then checked in the order given.
    let heads: Vec<Result<Option<Head>, String>> = std::thread::scope(|s| {
        let hs: Vec<_> = docs
            .iter()
            .map(|d| s.spawn(move || d.parse(|de| de.deserialize_any(Any(HeadV)))))
            .collect();
        hs.into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a reader stopped".into())))
            .collect()
    });
    for (d, head) in docs.iter().zip(heads) {
        let doc = head?.unwrap_or_default();
        let name = d.path.display();
        if doc.version != crate::json::report::VERSION {
            return Err(format!(
                "{name} is not a version-{} document of `litmus check --json`",
                crate::json::report::VERSION
            ));
        }
        let shard = &doc.shard;
        let (Some(k), Some(n), Some(m)) = (
            shard["index"].as_u64(),
            shard["count"].as_u64(),
            shard["files"].as_u64(),
        ) else {
            return Err(format!(
                "{name} has no `shard` (made by `litmus check --json --shard K/N`?)"
            ));
        };
        match count_files {
            None => count_files = Some((n, m)),
            Some(cm) if cm != (n, m) => {
                return Err(format!(
                    "{name} is shard {k}/{n} of {m} files, the others are of {}/{} files",
                    cm.0, cm.1
                ))
            }
            Some(_) => {}
        }
        if !seen_shards.insert(k) {
            return Err(format!("shard {k}/{n} is given twice ({name})"));
        }
        let Some(idx) = doc.files.iter().copied().collect::<Option<Vec<u64>>>() else {
            return Err(format!("{name}: a file has no `index`"));
        };
        in_order &= doc.files_keys <= 1 && idx.windows(2).all(|w| w[0] < w[1]);
        positions.push(idx);
    }
    let Some((n, m)) = count_files else {
        return Err("no documents".into());
    };
    let missing: Vec<String> = (1..=n)
        .filter(|k| !seen_shards.contains(k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        return Err(format!("shards missing: {}", missing.join(", ")));
    }
    let mut all: Vec<u64> = positions.iter().flatten().copied().collect();
    all.sort_unstable();
    if all.len() as u64 != m || all.iter().zip(1..).any(|(&p, i)| p != i) {
        return Err(format!(
            "the shards' files are not positions 1 to {m} of one argument list, each once"
        ));
    }
    Ok(Scan {
        files: m,
        positions,
        in_order,
    })
}

/// The second pass: every file, in position order, as the merged document.
fn stream(docs: &[Doc], scan: &Scan) -> i32 {
    // Which document holds each position.
    let mut owner = vec![0usize; scan.files as usize];
    for (d, ps) in scan.positions.iter().enumerate() {
        for &p in ps {
            owner[p as usize - 1] = d;
        }
    }
    let mut flags = Flags::default();
    out(&json::open(None, scan.files == 0));
    std::thread::scope(|s| {
        let rxs: Vec<mpsc::Receiver<Result<(String, Flags), String>>> = docs
            .iter()
            .map(|d| {
                let (tx, rx) = mpsc::sync_channel(AHEAD);
                s.spawn(move || {
                    let r = d.reader().and_then(|r| {
                        let mut de = serde_json::Deserializer::from_reader(r);
                        de.deserialize_any(Any(Entries(&tx)))
                            .map_err(|e| format!("{} is not JSON: {e}", d.path.display()))
                    });
                    if let Err(e) = r {
                        let _ = tx.send(Err(e));
                    }
                });
                rx
            })
            .collect();
        for (i, &d) in owner.iter().enumerate() {
            match rxs[d].recv() {
                Ok(Ok((text, f))) => {
                    out(if i == 0 { "\n    " } else { ",\n    " });
                    out(&text);
                    flags.errors |= f.errors;
                    flags.violation |= f.violation;
                    flags.incomplete |= f.incomplete;
                }
                Ok(Err(e)) => fail(&e),
                Err(_) => fail(&format!(
                    "{} changed while it was merged",
                    docs[d].path.display()
                )),
            }
        }
    });
    if scan.files > 0 {
        out(json::close());
    }
    flags.status()
}

/// A document that went wrong in the second pass: part of the output is written already.
fn fail(e: &str) -> ! {
    err(&format!("litmus merge: {e}"));
    std::process::exit(exit::BAD_INPUT)
}

/// The merged document built in memory (the shards are checked already).
fn merge_in_memory(docs: &[Doc]) -> Result<Value, String> {
    let mut files: Vec<(u64, Value)> = vec![];
    for d in docs.iter() {
        let mut doc: Value = d.parse(|de| Value::deserialize(de))?;
        if let Some(fs) = doc.get_mut("files").and_then(Value::as_array_mut) {
            for mut f in std::mem::take(fs) {
                let i = f
                    .as_object_mut()
                    .and_then(|o| o.shift_remove("index"))
                    .and_then(|i| i.as_u64())
                    .unwrap_or(0);
                files.push((i, f));
            }
        }
    }
    files.sort_by_key(|(i, _)| *i);
    let mut doc = Map::new();
    doc.insert("version".into(), crate::json::report::VERSION.into());
    doc.insert(
        "files".into(),
        Value::Array(files.into_iter().map(|(_, f)| f).collect()),
    );
    Ok(Value::Object(doc))
}

/// What a file's reports say, for the exit status.
#[derive(Default, Clone, Copy)]
struct Flags {
    errors: bool,
    violation: bool,
    incomplete: bool,
}

impl Flags {
    fn of(f: &Value) -> Flags {
        let errors = f["diagnostics"]
            .as_array()
            .is_some_and(|d| d.iter().any(|d| d["severity"] == "error"));
        let reports: Vec<&Value> = f["results"]
            .as_object()
            .into_iter()
            .flat_map(|r| r.values())
            .collect();
        let violation = reports.iter().any(|r| {
            r["violations"].as_array().is_some_and(|v| !v.is_empty())
                || r["robust"]["holds"] == false
        });
        let incomplete = reports
            .iter()
            .any(|r| r["complete"] == false || r["robust"]["complete"] == false);
        Flags {
            errors,
            violation,
            incomplete,
        }
    }

    fn status(self) -> i32 {
        if self.errors {
            exit::BAD_INPUT
        } else if self.violation {
            exit::VIOLATION
        } else if self.incomplete {
            exit::INCOMPLETE
        } else {
            exit::OK
        }
    }
}

/// Deserialises any JSON value with the visitor `V`'s map (or seq) handling; any other value
/// is skipped and gives `None`, as `Value`'s indexing gives `Null`.
struct Any<V>(V);

/// How a value of the document is taken apart.
trait Part<'de> {
    type Out;
    fn map<A: MapAccess<'de>>(self, _m: A) -> Result<Option<Self::Out>, A::Error>;
    fn seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Option<Self::Out>, A::Error>
    where
        Self: Sized,
    {
        while s.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

impl<'de, V: Part<'de>> DeserializeSeed<'de> for Any<V> {
    type Value = Option<V::Out>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, V: Part<'de>> Visitor<'de> for Any<V> {
    type Value = Option<V::Out>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<Self::Value, A::Error> {
        self.0.map(m)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, s: A) -> Result<Self::Value, A::Error> {
        self.0.seq(s)
    }
}

/// The first pass's view of a document.
struct HeadV;

impl<'de> Part<'de> for HeadV {
    type Out = Head;
    fn map<A: MapAccess<'de>>(self, mut m: A) -> Result<Option<Head>, A::Error> {
        let mut h = Head::default();
        while let Some(k) = m.next_key::<std::borrow::Cow<'de, str>>()? {
            match &*k {
                "version" => h.version = m.next_value()?,
                "shard" => h.shard = m.next_value()?,
                "files" => {
                    h.files = m.next_value_seed(Any(Positions))?.unwrap_or_default();
                    h.files_keys += 1;
                }
                _ => {
                    m.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Some(h))
    }
}

/// The positions of a document's files (`files`).
struct Positions;

impl<'de> Part<'de> for Positions {
    type Out = Vec<Option<u64>>;
    fn map<A: MapAccess<'de>>(self, mut m: A) -> Result<Option<Self::Out>, A::Error> {
        while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Option<Self::Out>, A::Error> {
        let mut v = vec![];
        while let Some(i) = s.next_element_seed(Any(Position))? {
            v.push(i.flatten());
        }
        Ok(Some(v))
    }
}

/// One file's `index` (`Some(None)`: a file without one).
struct Position;

impl<'de> Part<'de> for Position {
    type Out = Option<u64>;
    fn map<A: MapAccess<'de>>(self, mut m: A) -> Result<Option<Self::Out>, A::Error> {
        let mut index = None;
        while let Some(k) = m.next_key::<std::borrow::Cow<'de, str>>()? {
            if k == "index" {
                index = m.next_value::<Value>()?.as_u64();
            } else {
                m.next_value::<IgnoredAny>()?;
            }
        }
        Ok(Some(index))
    }
}

/// The second pass's view of a document: each file of `files`, without its `index`,
/// pretty-printed at its depth in the merged document, sent to the printer.
struct Entries<'a>(&'a mpsc::SyncSender<Result<(String, Flags), String>>);

impl<'de> Part<'de> for Entries<'_> {
    type Out = ();
    fn map<A: MapAccess<'de>>(self, mut m: A) -> Result<Option<()>, A::Error> {
        while let Some(k) = m.next_key::<std::borrow::Cow<'de, str>>()? {
            if k == "files" {
                m.next_value_seed(Any(Entries(self.0)))?;
            } else {
                m.next_value::<IgnoredAny>()?;
            }
        }
        Ok(None)
    }
    fn seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Option<()>, A::Error> {
        while let Some(mut f) = s.next_element::<Value>()? {
            if let Some(o) = f.as_object_mut() {
                o.shift_remove("index");
            }
            let flags = Flags::of(&f);
            let text = serde_json::to_string_pretty(&f).expect("a JSON value prints");
            if self
                .0
                .send(Ok((json::indented(&text, "    "), flags)))
                .is_err()
            {
                break;
            }
        }
        Ok(None)
    }
}

/// The exit status `litmus check` gives the run the document reports: 2 if a file has an
/// error diagnostic, else 1 if a violation (or a program that is not robust), else 3 if an
/// exploration was incomplete, else 0.
pub fn status(doc: &Value) -> i32 {
    let files = doc["files"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let errors = files.iter().any(|f| {
        f["diagnostics"]
            .as_array()
            .is_some_and(|d| d.iter().any(|d| d["severity"] == "error"))
    });
    let reports: Vec<&Value> = files
        .iter()
        .filter_map(|f| f["results"].as_object())
        .flat_map(|r| r.values())
        .collect();
    let violation = reports.iter().any(|r| {
        r["violations"].as_array().is_some_and(|v| !v.is_empty()) || r["robust"]["holds"] == false
    });
    let incomplete = reports
        .iter()
        .any(|r| r["complete"] == false || r["robust"]["complete"] == false);
    if errors {
        exit::BAD_INPUT
    } else if violation {
        exit::VIOLATION
    } else if incomplete {
        exit::INCOMPLETE
    } else {
        exit::OK
    }
}
