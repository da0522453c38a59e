//! Reads every shared fixture (`shared/fixtures/etl/*.etl`: two real Windows 10 files and
//! one built to the format reference) and compares each record outside buffer 0 with its
//! line of `*.expected.jsonl`, which `etl_check.py --json` made from what both third-party
//! parsers agree on. Field meanings, as that script produces them: records are in file
//! order (buffer 1 on), `payload_len` is the user data without extended items, `ext` lists
//! `[type, data_size]`, `ts_raw` is the raw timestamp, `provider` the GUID in Windows order.
//!
//! JSON is read with the small parser below rather than a serde_json dev-dependency: the
//! lines are flat and machine-written, and it keeps the crate's dependency list at two.

use crate::common;

use common::shared_fixtures;
use etwsim_etl::{LogFile, ReadOptions, Reader, Record};

#[test]
fn every_fixture_record_matches_its_expected_line() {
    // rule: CON-04 (file order here; the merged order is checked below), SES-65 (raw values)
    let Some(files) = shared_fixtures() else {
        return;
    };
    assert!(!files.is_empty(), "no fixtures found");
    for path in files {
        let expected_path = path.with_extension("expected.jsonl");
        let text = std::fs::read_to_string(&expected_path)
            .unwrap_or_else(|e| panic!("{}: {e}", expected_path.display()));
        let expected: Vec<Json> = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| Json::parse(l).unwrap_or_else(|e| panic!("{l}: {e}")))
            .collect();
        let mut file = LogFile::open(&path).unwrap();
        assert!(file.damage().is_none(), "{:?}", file.damage());
        let got: Vec<Record> = file.records().collect::<Result<_, _>>().unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(got.len(), expected.len(), "{name}: record count");
        for (i, (r, want)) in got.iter().zip(&expected).enumerate() {
            compare(&format!("{name} record {i}"), r, want);
        }
        eprintln!("{name}: {} records match", got.len());
    }
}

fn compare(at: &str, r: &Record, want: &Json) {
    let kind = want.get("kind").and_then(Json::as_str).unwrap_or("");
    let num = |k: &str| {
        want.get(k)
            .and_then(Json::as_int)
            .unwrap_or_else(|| panic!("{at}: no {k}"))
    };
    match r {
        Record::Event(e) => {
            assert_eq!(kind, "EVENT_HEADER", "{at}");
            let h = &e.header;
            let d = &h.descriptor;
            let provider = h.provider_id.to_string();
            assert_eq!(
                want.get("provider").and_then(Json::as_str),
                Some(provider.trim_matches(|c| c == '{' || c == '}')),
                "{at}: provider"
            );
            let fields: [(&str, i128); 12] = [
                ("id", d.id.into()),
                ("version", d.version.into()),
                ("channel", d.channel.0.into()),
                ("level", d.level.0.into()),
                ("opcode", d.opcode.0.into()),
                ("task", d.task.0.into()),
                ("keyword", d.keyword.0.into()),
                ("pid", h.process_id.into()),
                ("tid", h.thread_id.into()),
                ("ts_raw", h.timestamp.into()),
                ("payload_len", e.user_data.len() as i128),
                ("ext_count", e.extended_data.len() as i128),
            ];
            let ext = want.get("ext").and_then(Json::as_array).expect("ext");
            for (k, v) in fields {
                let w = if k == "ext_count" {
                    ext.len() as i128
                } else {
                    num(k)
                };
                assert_eq!(v, w, "{at}: {k}");
            }
            for (item, w) in e.extended_data.iter().zip(ext) {
                let w = w.as_array().expect("[type, size]");
                assert_eq!(i128::from(item.ext_type), w[0].as_int().unwrap(), "{at}");
                assert_eq!(item.data.len() as i128, w[1].as_int().unwrap(), "{at}");
            }
        }
        Record::Trace(t) => {
            assert_ne!(kind, "EVENT_HEADER", "{at}");
            if let Some(p) = want.get("pid").and_then(Json::as_int) {
                assert_eq!(t.process_id.map(i128::from), Some(p), "{at}: pid");
            }
            if let Some(ts) = want.get("ts_raw").and_then(Json::as_int) {
                assert_eq!(t.timestamp.map(i128::from), Some(ts), "{at}: ts_raw");
            }
            if let Some(h) = want.get("hook").and_then(Json::as_int) {
                assert_eq!(i128::from(t.hook_id), h, "{at}: hook");
            }
            if let Some(n) = want.get("payload_len").and_then(Json::as_int) {
                assert_eq!(t.payload.len() as i128, n, "{at}: payload_len");
            }
        }
    }
}

#[test]
fn fixtures_merge_oldest_first_with_their_headers() {
    // rule: CON-04, SES-65, BUF-17
    let Some(files) = shared_fixtures() else {
        return;
    };
    for path in files {
        let mut file = LogFile::open(&path).unwrap();
        let h = file.header().clone();
        assert_eq!(h.pointer_size, 8);
        assert_eq!(h.perf_freq, 10_000_000);
        assert_eq!(h.reserved_flags, 1);
        assert!(h.start_time > 0 && h.end_time >= h.start_time, "{h:?}");
        assert!(!h.logger_name.is_empty());
        let header_records = file.header_records().unwrap();
        assert_eq!(header_records.len(), 2, "EventTrace/Header + PartitionInfo");
        let in_file: Vec<i64> = file
            .records()
            .map(|r| r.unwrap().timestamp().unwrap())
            .collect();

        let raw: Vec<i64> = Reader::open_with(
            [&path],
            ReadOptions {
                raw_timestamps: true,
                ..ReadOptions::default()
            },
        )
        .unwrap()
        .map(|r| r.unwrap().timestamp().unwrap())
        .collect();
        let mut sorted = in_file.clone();
        sorted.sort();
        assert_eq!(raw, sorted, "{}", path.display());

        let converted: Vec<i64> = Reader::open([&path])
            .unwrap()
            .map(|r| r.unwrap().timestamp().unwrap())
            .collect();
        let want: Vec<i64> = sorted.iter().map(|&t| h.to_filetime(t).unwrap()).collect();
        assert_eq!(converted, want);
        // Every event lies in [StartTime, EndTime] as Windows wrote them.
        assert!(converted.iter().all(|&t| t >= h.start_time - 10_000_000));
        assert!(converted.iter().all(|&t| t <= h.end_time + 10_000_000));
    }
}

/// A JSON value; numbers keep their text so 64-bit keywords stay exact.
#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    fn parse(s: &str) -> Result<Json, String> {
        let mut p = Parser {
            b: s.as_bytes(),
            at: 0,
        };
        let v = p.value()?;
        p.ws();
        if p.at != p.b.len() {
            return Err(format!("trailing text at {}", p.at));
        }
        Ok(v)
    }

    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(v) => v.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    fn as_int(&self) -> Option<i128> {
        match self {
            Json::Num(n) => n.parse().ok(),
            _ => None,
        }
    }

    fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Arr(v) => Some(v),
            _ => None,
        }
    }
}

struct Parser<'a> {
    b: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.b.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    fn eat(&mut self, c: u8) -> Result<(), String> {
        self.ws();
        if self.b.get(self.at) == Some(&c) {
            self.at += 1;
            Ok(())
        } else {
            Err(format!("expected {:?} at {}", c as char, self.at))
        }
    }

    fn value(&mut self) -> Result<Json, String> {
        self.ws();
        match self.b.get(self.at) {
            Some(b'{') => {
                self.at += 1;
                let mut v = Vec::new();
                self.ws();
                if self.b.get(self.at) == Some(&b'}') {
                    self.at += 1;
                    return Ok(Json::Obj(v));
                }
                loop {
                    self.ws();
                    let k = self.string()?;
                    self.eat(b':')?;
                    v.push((k, self.value()?));
                    self.ws();
                    match self.b.get(self.at) {
                        Some(b',') => self.at += 1,
                        Some(b'}') => {
                            self.at += 1;
                            return Ok(Json::Obj(v));
                        }
                        _ => return Err(format!("bad object at {}", self.at)),
                    }
                }
            }
            Some(b'[') => {
                self.at += 1;
                let mut v = Vec::new();
                self.ws();
                if self.b.get(self.at) == Some(&b']') {
                    self.at += 1;
                    return Ok(Json::Arr(v));
                }
                loop {
                    v.push(self.value()?);
                    self.ws();
                    match self.b.get(self.at) {
                        Some(b',') => self.at += 1,
                        Some(b']') => {
                            self.at += 1;
                            return Ok(Json::Arr(v));
                        }
                        _ => return Err(format!("bad array at {}", self.at)),
                    }
                }
            }
            Some(b'"') => self.string().map(Json::Str),
            Some(b't') => self.word("true", Json::Bool(true)),
            Some(b'f') => self.word("false", Json::Bool(false)),
            Some(b'n') => self.word("null", Json::Null),
            Some(c) if *c == b'-' || c.is_ascii_digit() => {
                let start = self.at;
                while self
                    .b
                    .get(self.at)
                    .is_some_and(|c| c.is_ascii_digit() || b"+-.eE".contains(c))
                {
                    self.at += 1;
                }
                Ok(Json::Num(
                    String::from_utf8_lossy(&self.b[start..self.at]).into_owned(),
                ))
            }
            _ => Err(format!("unexpected input at {}", self.at)),
        }
    }

    fn word(&mut self, w: &str, v: Json) -> Result<Json, String> {
        if self.b[self.at..].starts_with(w.as_bytes()) {
            self.at += w.len();
            Ok(v)
        } else {
            Err(format!("bad literal at {}", self.at))
        }
    }

    fn string(&mut self) -> Result<String, String> {
        self.eat(b'"')?;
        let mut out: Vec<u16> = Vec::new();
        loop {
            let c = *self.b.get(self.at).ok_or("unterminated string")?;
            self.at += 1;
            match c {
                b'"' => return Ok(String::from_utf16_lossy(&out)),
                b'\\' => {
                    let e = *self.b.get(self.at).ok_or("bad escape")?;
                    self.at += 1;
                    let ch = match e {
                        b'n' => '\n',
                        b't' => '\t',
                        b'r' => '\r',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'u' => {
                            let hex = self.b.get(self.at..self.at + 4).ok_or("bad \\u")?;
                            self.at += 4;
                            let unit = u16::from_str_radix(&String::from_utf8_lossy(hex), 16)
                                .map_err(|e| e.to_string())?;
                            out.push(unit);
                            continue;
                        }
                        other => other as char,
                    };
                    out.extend(ch.encode_utf16(&mut [0; 2]).iter());
                }
                _ => {
                    // Copy a whole UTF-8 sequence.
                    let start = self.at - 1;
                    let len = match c {
                        0xF0.. => 4,
                        0xE0.. => 3,
                        0xC0.. => 2,
                        _ => 1,
                    };
                    let s = std::str::from_utf8(self.b.get(start..start + len).ok_or("bad utf-8")?)
                        .map_err(|e| e.to_string())?;
                    out.extend(s.encode_utf16());
                    self.at = start + len;
                }
            }
        }
    }
}

#[test]
fn the_json_reader_reads_what_the_fixtures_hold() {
    let v = Json::parse(
        r#"{"a": [1, -2, 18446744073709551615], "s": "x\"\\\n\u00e9é", "o": {}, "n": null, "t": true}"#,
    )
    .unwrap();
    let a = v.get("a").unwrap().as_array().unwrap();
    assert_eq!(a[2].as_int(), Some(18_446_744_073_709_551_615));
    assert_eq!(a[1].as_int(), Some(-2));
    assert_eq!(v.get("s").unwrap().as_str(), Some("x\"\\\néé"));
    assert!(Json::parse("{").is_err());
    assert!(Json::parse("[1,]").is_err());
}
