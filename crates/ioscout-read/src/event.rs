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

/// What [`decode_phase`] found on a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinePhase {
    /// Whitespace only.
    Blank,
    /// The `[` / `]` wrapper of a Chrome trace.
    Wrapper,
    /// An event of this phase, with the evidence its top-level fields give.
    Event(Phase, GenerationEvidence),
}

/// Decodes only what counting needs: whether the line is a valid event and its phase. Agrees
/// with [`decode_line`] on every line (validity, error kind and phase; checked by the
/// differential tests and the fuzz target) while skipping the construction of the event.
pub fn decode_phase(line: &[u8]) -> Result<LinePhase, LineError> {
    if let Some(phase) = fast_phase(line) {
        return Ok(phase);
    }
    // Everything else (escapes, non-ASCII, numbers written as strings, invalid lines) is rare:
    // decode it fully.
    Ok(match decode_line(line)? {
        Line::Blank => LinePhase::Blank,
        Line::Wrapper => LinePhase::Wrapper,
        Line::Event(event) => {
            let phase = event.phase.ok_or_else(|| LineError::NotAnEvent("no ph field".into()))?;
            LinePhase::Event(phase, event.evidence)
        }
    })
}

/// The common case of [`decode_phase`], on bytes: an ASCII line without escapes that is exactly
/// one object whose numeric fields are plain integers. Returns `None` for anything else (and for
/// every invalid line), leaving the decision to the general path.
fn fast_phase(line: &[u8]) -> Option<LinePhase> {
    let bytes = json::plain_object_line(line)?;
    match ordered_phase(bytes) {
        json::Layout::Read(phase) => phase,
        json::Layout::Other => walk_phase(bytes),
    }
}

/// The key-by-key walk of [`fast_phase`] over a checked line (keys in any order, spaces
/// allowed).
fn walk_phase(bytes: &[u8]) -> Option<LinePhase> {
    let mut phase = None;
    let mut integer_phase = false;
    let mut index = json::skip_space(bytes, 1);
    if bytes.get(index) == Some(&b'}') {
        return None;
    }
    loop {
        if bytes.get(index) != Some(&b'"') {
            return None;
        }
        let key_end = json::find_quote(bytes, index + 1)?;
        let key = &bytes[index + 1..key_end];
        index = json::skip_space(bytes, key_end + 1);
        if bytes.get(index) != Some(&b':') {
            return None;
        }
        index = json::skip_space(bytes, index + 1);
        let first = *bytes.get(index)?;
        index = match key {
            b"ph" if first == b'"' => {
                let value_end = json::find_quote(bytes, index + 1)?;
                let found = match &bytes[index + 1..value_end] {
                    b"X" => Phase::Complete,
                    b"M" => Phase::Metadata,
                    b"A" => Phase::Aggregated,
                    // "C" may be an aggregated event (dft_cnt in args): the general path decides.
                    b"C" => return None,
                    _ => Phase::Other,
                };
                phase = Some(found);
                integer_phase = false;
                value_end + 1
            }
            b"ph" => {
                let value_end = json::scan_number(bytes, index)?;
                phase = Some(match &bytes[index..value_end] {
                    b"1" => Phase::Complete,
                    b"2" => Phase::Counter,
                    b"3" => Phase::Aggregated,
                    b"4" => Phase::Metadata,
                    _ => Phase::Other,
                });
                integer_phase = true;
                value_end
            }
            b"id" | b"pid" | b"tid" | b"ts" | b"dur" | b"type" => {
                if first == b'n' {
                    json::literal(bytes, index, b"null")?
                } else {
                    json::scan_plain_integer(bytes, index)?
                }
            }
            b"args" if first != b'{' && first != b'n' => return None,
            _ => json::skip_value(bytes, index)?,
        };
        index = json::skip_space(bytes, index);
        match bytes.get(index) {
            Some(b',') => index = json::skip_space(bytes, index + 1),
            Some(b'}') if index + 1 == bytes.len() => break,
            _ => return None,
        }
    }
    let evidence = if integer_phase {
        GenerationEvidence(GenerationEvidence::INTEGER_PHASE)
    } else {
        GenerationEvidence::default()
    };
    Some(LinePhase::Event(phase?, evidence))
}

/// [`fast_phase`] for the layout DFTracer writes (see [`json::Ordered`]): the keys `id`, `name`,
/// `cat`, `type`, `pid`, `tid`, `ts`, `dur`, `ph`, `args` in this order, each but `ph` optional,
/// without spaces, plain integers and strings, `args` an object (validated in full). `None` when
/// the line is laid out otherwise, and the key-by-key walk of [`fast_phase`] reads it; else what
/// that walk answers (held so by [`decoders_agree`]).
fn ordered_phase(bytes: &[u8]) -> json::Layout<Option<LinePhase>> {
    match ordered_phase_in(bytes) {
        Some(phase) => json::Layout::Read(phase),
        None => json::Layout::Other,
    }
}

/// [`ordered_phase`]: `None` for another layout.
#[allow(clippy::option_option)]
fn ordered_phase_in(bytes: &[u8]) -> Option<Option<LinePhase>> {
    let mut cursor = json::Ordered::new(bytes);
    cursor.head()?;
    let (phase, integer_phase) = if cursor.step_over(b'"') {
        let phase = match cursor.rest_of_string()? {
            b"X" => Phase::Complete,
            b"M" => Phase::Metadata,
            b"A" => Phase::Aggregated,
            // "C" may be an aggregated event (dft_cnt in args): the general path decides.
            b"C" => return Some(None),
            _ => Phase::Other,
        };
        (phase, false)
    } else {
        let start = cursor.at;
        cursor.at = json::scan_number(bytes, start)?;
        let phase = match &bytes[start..cursor.at] {
            b"1" => Phase::Complete,
            b"2" => Phase::Counter,
            b"3" => Phase::Aggregated,
            b"4" => Phase::Metadata,
            _ => Phase::Other,
        };
        (phase, true)
    };
    if cursor.key(b"\"args\":{") {
        cursor.at = json::skip_object(bytes, cursor.at - 1)?;
    }
    if !cursor.at_last_brace() {
        return None;
    }
    let evidence = if integer_phase {
        GenerationEvidence(GenerationEvidence::INTEGER_PHASE)
    } else {
        GenerationEvidence::default()
    };
    Some(Some(LinePhase::Event(phase, evidence)))
}

/// Checks that the three decoders agree on `line`: the fast path and the full parse give the same
/// line (or errors of the same kind), and [`decode_phase`] gives the same validity and phase.
/// Returns whether the fast path answered. Used by the differential tests and the fuzz target.
pub fn decoders_agree(line: &[u8]) -> Result<bool, String> {
    let shown = || String::from_utf8_lossy(line).into_owned();
    let fast = decode_line_with(line, Decoder::Fast);
    let full = decode_line_with(line, Decoder::FullOnly);
    let phase = decode_phase(line);
    match (&fast, &full) {
        (Ok((fast_line, _)), Ok((full_line, _))) if fast_line != full_line => {
            return Err(format!(
                "fast and full paths disagree on {:?}: {fast_line:?} / {full_line:?}",
                shown()
            ));
        }
        (Err(fast_error), Err(full_error))
            if std::mem::discriminant(fast_error) != std::mem::discriminant(full_error) =>
        {
            return Err(format!("different errors for {:?}: {fast_error} / {full_error}", shown()));
        }
        (Ok(_), Err(_)) | (Err(_), Ok(_)) => {
            return Err(format!("validity differs for {:?}: fast {fast:?}, full {full:?}", shown()));
        }
        _ => {}
    }
    let agrees = match (&full, &phase) {
        (Ok((Line::Event(event), _)), Ok(LinePhase::Event(found, _))) => event.phase == Some(*found),
        (Ok((Line::Blank, _)), Ok(LinePhase::Blank)) | (Ok((Line::Wrapper, _)), Ok(LinePhase::Wrapper)) => {
            true
        }
        (Err(full_error), Err(phase_error)) => {
            std::mem::discriminant(full_error) == std::mem::discriminant(phase_error)
        }
        _ => false,
    };
    if !agrees {
        return Err(format!(
            "decode_phase disagrees on {:?}: decode_line {full:?}, decode_phase {phase:?}",
            shown()
        ));
    }
    if let Some(bytes) = json::plain_object_line(line)
        && let json::Layout::Read(ordered) = ordered_phase(bytes)
    {
        let walked = walk_phase(bytes);
        if walked != ordered {
            return Err(format!(
                "the ordered phase path disagrees on {:?}: {ordered:?} / {walked:?}",
                shown()
            ));
        }
    }
    if let json::Layout::Read(ordered) = crate::fields::decode_ordered_only(line) {
        let general = crate::fields::decode_any_order_only(line);
        if general != ordered {
            return Err(format!(
                "the ordered field path disagrees on {:?}: {ordered:?} / {general:?}",
                shown()
            ));
        }
    }
    if let Some(fields) = crate::fields::decode_fields(line) {
        let Ok((Line::Event(event), _)) = &full else {
            return Err(format!("decode_fields accepted {:?}, which is not an event", shown()));
        };
        let expected = crate::fields::EventFields::from_event(event);
        if expected.as_ref() != Some(&fields) {
            return Err(format!("decode_fields disagrees on {:?}: {fields:?} / {expected:?}", shown()));
        }
    }
    // A line cut from a block found plain (lines hold no newline) decodes the same without the
    // line's own check.
    if !line.contains(&b'\n')
        && let Some(text) = json::plain_lines(line)
    {
        let mut plain = crate::fields::EventFields::empty();
        let taken = crate::fields::decode_plain_fields_into(text, &mut plain).then_some(plain);
        if taken != crate::fields::decode_fields(line) {
            return Err(format!("the plain-block field path disagrees on {:?}: {taken:?}", shown()));
        }
    }
    Ok(matches!(fast, Ok((_, Decoder::Fast))))
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
    /// `ph` was written as a letter (else an integer).
    phase_is_text: bool,
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
        // Dispatch on the length first: the comparisons are then of 2, 3 or 4 bytes, without a
        // call to memcmp per key.
        let bytes = key.as_bytes();
        let known = match bytes.len() {
            2 => matches!(bytes, b"ph" | b"id" | b"ts"),
            3 => matches!(bytes, b"pid" | b"tid" | b"dur" | b"cat"),
            4 => matches!(bytes, b"type" | b"name" | b"args"),
            _ => false,
        };
        if !known {
            event.extra.push((key, value));
            return Ok(());
        }
        match bytes {
            b"ph" => {
                let phase = Phase::from_raw(&value)
                    .ok_or_else(|| LineError::NotAnEvent("ph is neither a string nor a number".into()))?;
                event.phase = Some(phase);
                self.phase_is_text = value.is_str();
            }
            b"id" => event.id = integer_field("id", &value, strings_seen)?,
            b"pid" => event.pid = integer_field("pid", &value, strings_seen)?,
            b"tid" => event.tid = integer_field("tid", &value, strings_seen)?,
            b"ts" => event.ts = integer_field("ts", &value, strings_seen)?,
            b"dur" => event.dur = integer_field("dur", &value, strings_seen)?,
            b"type" => event.kind = integer_field("type", &value, strings_seen)?,
            b"name" => event.name = text_field(value),
            b"cat" => event.cat = text_field(value),
            b"args" => match value {
                RawValue::Object(text) => event.args = Some(text),
                RawValue::Null => event.args = None,
                _ => return Err(LineError::NotAnEvent("args is not an object".into())),
            },
            _ => {}
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
        if event.phase.is_some() && !self.phase_is_text {
            event.evidence.add(GenerationEvidence(GenerationEvidence::INTEGER_PHASE));
        }
        if event.phase.is_none() {
            return Err(LineError::NotAnEvent("no ph field".into()));
        }
        if event.phase == Some(Phase::Counter)
            && self.phase_is_text
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
        match event.args {
            Some(text) => Args { fields: json::object_fields(text).unwrap_or_default() },
            None => Args::default(),
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

    /// Every fuzz reproducer of `decode_line` (checked in under `testdata/fuzz-repro/`): the
    /// decoders give one answer.
    #[test]
    fn fuzz_reproducers_of_decode_line_agree() {
        let folder = std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/fuzz-repro/decode_line"
        ));
        let Ok(entries) = std::fs::read_dir(folder) else { panic!("{} is missing", folder.display()) };
        let mut seen = 0;
        for entry in entries.flatten() {
            let Ok(line) = std::fs::read(entry.path()) else { continue };
            if let Err(problem) = decoders_agree(&line) {
                panic!("{}: {problem}", entry.path().display());
            }
            if let Err(problem) = crate::metadata::metadata_paths_agree(&line) {
                panic!("{}: {problem}", entry.path().display());
            }
            seen += 1;
        }
        assert!(seen > 0, "no reproducer read from {}", folder.display());
    }

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
