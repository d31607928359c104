//! Turning one decoded line into an [`Event`], and looking into its `args`.
//!
//! # Overview
//!
//! [`decode_line`] is the single entry point used by the scanner: UTF-8 check, framing, fast path
//! or full parse ([`crate::json`]), then [`event_from_fields`], which applies the lenient rules
//! every generation needs (numbers written as strings, `ph` as a letter or an integer). [`Args`]
//! parses an event's raw `args` object on demand; [`hash_evidence`] and [`metadata_entry`] read the
//! fields that tell the format generation and fill the hash tables.

use std::borrow::Cow;

use ioscout_model::{Event, GenerationEvidence, HashToken, MetadataKind, Phase, RawValue};

use crate::json::{self, Field, Framed};

/// Why a line is not an event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineError {
    /// The line is not valid UTF-8.
    InvalidUtf8,
    /// The line is not a JSON object (or not valid JSON).
    InvalidJson(String),
    /// The object is not an event: `ph` missing, or a known field has the wrong type.
    NotAnEvent(String),
}

impl std::fmt::Display for LineError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LineError::InvalidUtf8 => formatter.write_str("invalid UTF-8"),
            LineError::InvalidJson(detail) => write!(formatter, "invalid JSON: {detail}"),
            LineError::NotAnEvent(detail) => write!(formatter, "not an event: {detail}"),
        }
    }
}

/// What one line holds.
#[derive(Debug, PartialEq)]
#[expect(
    clippy::large_enum_variant,
    reason = "returned by value once per line; boxing would allocate per event"
)]
pub enum Line<'a> {
    /// Whitespace only.
    Blank,
    /// The `[` / `]` wrapper of a Chrome trace.
    Wrapper,
    /// An event.
    Event(Event<'a>),
}

/// Which decoder answered for a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decoder {
    /// The fast field splitter.
    Fast,
    /// The `serde_json` fallback.
    Full,
    /// Only the full parser (used by differential tests).
    FullOnly,
}

/// Decodes one line (without its newline) with the fast path and the full parse as fallback.
pub fn decode_line(line: &[u8]) -> Result<Line<'_>, LineError> {
    decode_line_with(line, Decoder::Fast).map(|(line, _)| line)
}

/// Decodes one line, saying which decoder answered. With [`Decoder::FullOnly`] the fast path is
/// not tried.
pub fn decode_line_with(line: &[u8], decoder: Decoder) -> Result<(Line<'_>, Decoder), LineError> {
    let text = std::str::from_utf8(line).map_err(|_| LineError::InvalidUtf8)?;
    let object = match json::frame_line(text) {
        Framed::Blank => return Ok((Line::Blank, Decoder::Fast)),
        Framed::Wrapper => return Ok((Line::Wrapper, Decoder::Fast)),
        Framed::NotAnObject => return Err(LineError::InvalidJson("not a JSON object".to_string())),
        Framed::Object(object) => object,
    };
    if decoder == Decoder::Fast {
        let mut builder = EventBuilder::default();
        if json::fast_fields_with(object, |field| builder.field(field)).is_some() {
            return builder.finish().map(|event| (Line::Event(event), Decoder::Fast));
        }
    }
    let fields = json::full_fields(object).map_err(|error| LineError::InvalidJson(error.to_string()))?;
    let used = if decoder == Decoder::Fast { Decoder::Full } else { Decoder::FullOnly };
    event_from_fields(fields).map(|event| (Line::Event(event), used))
}

/// Builds an event from its top-level fields. Later duplicates win, as in a JSON map.
pub fn event_from_fields<'a>(fields: impl IntoIterator<Item = Field<'a>>) -> Result<Event<'a>, LineError> {
    let mut builder = EventBuilder::default();
    for field in fields {
        builder.field(field);
    }
    builder.finish()
}

/// Accumulates top-level fields into an [`Event`], keeping the first error.
#[derive(Default)]
struct EventBuilder<'a> {
    event: Event<'a>,
    strings_seen: bool,
    error: Option<LineError>,
}

impl<'a> EventBuilder<'a> {
    fn field(&mut self, (key, value): Field<'a>) {
        if self.error.is_some() {
            return;
        }
        if let Err(error) = self.apply(key, value) {
            self.error = Some(error);
        }
    }

    fn apply(&mut self, key: Cow<'a, str>, value: RawValue<'a>) -> Result<(), LineError> {
        let event = &mut self.event;
        let strings_seen = &mut self.strings_seen;
        match key.as_ref() {
            "ph" => {
                let phase = Phase::from_raw(&value)
                    .ok_or_else(|| LineError::NotAnEvent("ph is neither a string nor a number".into()))?;
                event.phase = Some(phase);
                event.raw_phase = Some(value);
            }
            "id" => event.id = integer_field("id", &value, strings_seen)?,
            "pid" => event.pid = integer_field("pid", &value, strings_seen)?,
            "tid" => event.tid = integer_field("tid", &value, strings_seen)?,
            "ts" => event.ts = integer_field("ts", &value, strings_seen)?,
            "dur" => event.dur = integer_field("dur", &value, strings_seen)?,
            "type" => event.kind = integer_field("type", &value, strings_seen)?,
            "name" => event.name = text_field(value),
            "cat" => event.cat = text_field(value),
            "args" => match value {
                RawValue::Object(_) => event.args = Some(value),
                RawValue::Null => event.args = None,
                _ => return Err(LineError::NotAnEvent("args is not an object".into())),
            },
            _ => event.extra.push((key, value)),
        }
        Ok(())
    }

    fn finish(self) -> Result<Event<'a>, LineError> {
        if let Some(error) = self.error {
            return Err(error);
        }
        let mut event = self.event;
        if self.strings_seen {
            event.evidence.add(GenerationEvidence(GenerationEvidence::STRING_NUMBERS));
        }
        if matches!(event.raw_phase, Some(RawValue::Number(_))) {
            event.evidence.add(GenerationEvidence(GenerationEvidence::INTEGER_PHASE));
        }
        if event.phase.is_none() {
            return Err(LineError::NotAnEvent("no ph field".into()));
        }
        if event.phase == Some(Phase::Counter)
            && matches!(event.raw_phase, Some(RawValue::Str(_)))
            && Args::of(&event).get("dft_cnt").is_some()
        {
            // DFTracer 2.0 wrote aggregated events as "C"; they carry dft_cnt.
            event.phase = Some(Phase::Aggregated);
        }
        Ok(event)
    }
}

fn integer_field(key: &str, value: &RawValue<'_>, strings_seen: &mut bool) -> Result<Option<i64>, LineError> {
    match value {
        RawValue::Null => Ok(None),
        RawValue::Number(_) | RawValue::Str(_) => {
            if value.is_str() {
                *strings_seen = true;
            }
            value.as_i64().map(Some).ok_or_else(|| LineError::NotAnEvent(format!("{key} is not a number")))
        }
        _ => Err(LineError::NotAnEvent(format!("{key} is not a number"))),
    }
}

fn text_field(value: RawValue<'_>) -> Option<Cow<'_, str>> {
    match value {
        RawValue::Str(text) => Some(text),
        RawValue::Null => None,
        RawValue::Number(text) | RawValue::Object(text) | RawValue::Array(text) => Some(Cow::Borrowed(text)),
        RawValue::Bool(flag) => Some(Cow::Borrowed(if flag { "true" } else { "false" })),
    }
}

/// The parsed `args` of an event. Invalid `args` cannot occur: the line was validated as a whole.
#[derive(Debug, Default)]
pub struct Args<'a> {
    fields: Vec<Field<'a>>,
}

impl<'a> Args<'a> {
    /// Parses the `args` of `event` (empty when it has none).
    pub fn of(event: &Event<'a>) -> Args<'a> {
        match &event.args {
            Some(RawValue::Object(text)) => Args { fields: json::object_fields(text).unwrap_or_default() },
            _ => Args::default(),
        }
    }

    /// The value of `key` (the last one when repeated).
    pub fn get(&self, key: &str) -> Option<&RawValue<'a>> {
        self.fields.iter().rev().find(|(name, _)| name == key).map(|(_, value)| value)
    }

    /// All fields in order.
    pub fn fields(&self) -> &[Field<'a>] {
        &self.fields
    }
}

/// Generation evidence found in `args`: the type of `hhash`, inline `hostname`/`fname`.
pub fn hash_evidence(args: &Args<'_>) -> GenerationEvidence {
    let mut evidence = GenerationEvidence::default();
    match args.get("hhash") {
        Some(RawValue::Number(_)) => evidence.add(GenerationEvidence(GenerationEvidence::INTEGER_HASH)),
        Some(RawValue::Str(_)) => evidence.add(GenerationEvidence(GenerationEvidence::STRING_HASH)),
        _ => {}
    }
    if args.get("hostname").is_some() || args.get("fname").is_some() {
        evidence.add(GenerationEvidence(GenerationEvidence::INLINE_NAMES));
    }
    evidence
}

/// One metadata record: its kind, `args.name` and `args.value`.
#[derive(Clone, Debug, PartialEq)]
pub struct MetadataEntry {
    /// The kind (FH, HH, ...).
    pub kind: MetadataKind,
    /// `args.name` as text.
    pub name: String,
    /// `args.value` as a hash token (its exact text).
    pub value: HashToken,
}

/// The metadata record carried by a metadata event, if it is one ioscout knows.
pub fn metadata_entry(event: &Event<'_>, args: &Args<'_>) -> Option<MetadataEntry> {
    if event.phase != Some(Phase::Metadata) {
        return None;
    }
    let kind = MetadataKind::from_name(event.name.as_deref()?)?;
    let name = args.get("name")?.as_text().into_owned();
    let value = args.get("value")?;
    let value = value.as_hash_token().unwrap_or_else(|| HashToken(value.as_text().into_owned()));
    Some(MetadataEntry { kind, name, value })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(line: &str) -> Event<'_> {
        match decode_line(line.as_bytes()) {
            Ok(Line::Event(event)) => event,
            other => panic!("not an event: {other:?}"),
        }
    }

    #[test]
    fn legacy_2023_string_numbers_are_read_leniently() {
        let line = r#" {"id":"0","name":"__lxstat","cat":"POSIX","pid":"1338896","tid":"2677792","ts":"1698080323775554","dur":"141","ph":"X","args":{"hostname":"corona237","fname":"/p/x"}}"#;
        let event = event(line);
        assert_eq!(event.pid, Some(1_338_896));
        assert_eq!(event.ts, Some(1_698_080_323_775_554));
        assert_eq!(event.phase, Some(Phase::Complete));
        let mut evidence = event.evidence;
        evidence.add(hash_evidence(&Args::of(&event)));
        assert_eq!(evidence.generation(), ioscout_model::Generation::Legacy2023);
    }

    #[test]
    fn v1_hashes_above_i64_stay_exact() {
        let line = r#"{"id":1,"name":"HH","cat":"dftracer","pid":1,"tid":1,"ph":"M","args":{"hhash":9509357668201227806,"name":"corona171","value":9509357668201227806}}"#;
        let event = event(line);
        let args = Args::of(&event);
        let entry = metadata_entry(&event, &args);
        assert_eq!(
            entry,
            Some(MetadataEntry {
                kind: MetadataKind::HostHash,
                name: "corona171".into(),
                value: HashToken("9509357668201227806".into())
            })
        );
        assert_eq!(hash_evidence(&args).generation(), ioscout_model::Generation::V1);
    }

    #[test]
    fn counter_with_dft_cnt_is_aggregated() {
        let line = r#"{"name":"openat","cat":"POSIX","ts":1,"ph":"C","pid":1,"tid":1,"args":{"hhash":"ab","dft_cnt":2}}"#;
        assert_eq!(event(line).phase, Some(Phase::Aggregated));
        let line = r#"{"name":"cpu","cat":"sys","ts":1,"ph":"C","pid":1,"tid":0,"args":{"user_pct":1.5}}"#;
        assert_eq!(event(line).phase, Some(Phase::Counter));
        let line = r#"{"name":"openat","cat":"POSIX","type":3,"ts":1,"ph":3,"pid":1,"tid":1}"#;
        assert_eq!(event(line).phase, Some(Phase::Aggregated));
    }

    #[test]
    fn lines_that_are_not_events_are_errors() {
        assert_eq!(decode_line(b"["), Ok(Line::Wrapper));
        assert_eq!(decode_line(b""), Ok(Line::Blank));
        assert!(matches!(decode_line(b"{\"name\":1}"), Err(LineError::NotAnEvent(_))));
        assert!(matches!(decode_line(b"{\"ph\":\"X\",\"ts\":\"x\"}"), Err(LineError::NotAnEvent(_))));
        assert!(matches!(decode_line(b"\xff{}"), Err(LineError::InvalidUtf8)));
        assert!(matches!(decode_line(b"{\"ph\":"), Err(LineError::InvalidJson(_))));
    }
}
