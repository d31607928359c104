//! The fields most stages need from an event, decoded straight from the line's bytes.
//!
//! # Overview
//!
//! [`EventFields`] holds an event's phase, name, category, numeric fields and the arguments that
//! locate and size I/O ([`KeyArgs`]: `hhash`, `fhash`, `ret`, `size_sum`, `image_size`, `epoch`,
//! `step`, `ppid`, the position arguments `offset`, `whence`, `size`, `ret_len`, `newpath_hash`,
//! `cmd_hash`, and the inline `hostname`/`fname` of 2023 traces). [`decode_fields`] fills it in one pass over an ASCII line
//! without escapes, validating the JSON as it goes and building no [`Event`]; it declines (returns
//! `None`) anything else, including every invalid line and every metadata or `C` event, and the
//! caller falls back to [`crate::event::decode_line`] and [`EventFields::from_event`]. The
//! differential tests and the fuzz target check that both routes give the same fields.
//!
//! Inside [`decode_fields`] a line is first read in the layout DFTracer writes (its keys in one
//! order, no spaces: [`crate::json::Ordered`]), each key checked in place; a line laid out any
//! other way is walked key by key. The differential checks hold the two walks to one answer.

use ioscout_model::{Event, Phase, RawValue};

use crate::event::Args;
use crate::json;

/// The arguments that locate and size I/O. Repeated keys keep the last value, as
/// [`Args::get`] does.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KeyArgs<'a> {
    /// `hhash`.
    pub hhash: Option<RawValue<'a>>,
    /// `fhash`.
    pub fhash: Option<RawValue<'a>>,
    /// `ret`.
    pub ret: Option<RawValue<'a>>,
    /// `size_sum`.
    pub size_sum: Option<RawValue<'a>>,
    /// `hostname` (2023 traces).
    pub hostname: Option<RawValue<'a>>,
    /// `fname` (2023 traces).
    pub fname: Option<RawValue<'a>>,
    /// `image_size` (bytes of a sample or image, DLIO).
    pub image_size: Option<RawValue<'a>>,
    /// `epoch` (DLIO 2.x).
    pub epoch: Option<RawValue<'a>>,
    /// `step` (DLIO 2.x).
    pub step: Option<RawValue<'a>>,
    /// `ppid` (the parent process, on DFTracer 2.x `start` events).
    pub ppid: Option<RawValue<'a>>,
    /// `offset` (`pread`/`pwrite`, seeks).
    pub offset: Option<RawValue<'a>>,
    /// `whence` (seeks).
    pub whence: Option<RawValue<'a>>,
    /// `size` (the item size of `fread`/`fwrite`).
    pub size: Option<RawValue<'a>>,
    /// `ret_len` (`fgets`).
    pub ret_len: Option<RawValue<'a>>,
    /// `newpath_hash` (`rename`).
    pub newpath_hash: Option<RawValue<'a>>,
    /// `cmd_hash` (`start` events).
    pub cmd_hash: Option<RawValue<'a>>,
    /// `flags` (the open flags of `open`).
    pub flags: Option<RawValue<'a>>,
    /// `mode` (the mode string of `fopen`, the permission bits of `open`).
    pub mode: Option<RawValue<'a>>,
}

impl<'a> KeyArgs<'a> {
    /// The key arguments of `event`, in one pass over its `args` (no allocation on the fast
    /// path).
    pub fn of(event: &Event<'a>) -> KeyArgs<'a> {
        let mut found = KeyArgs::default();
        let Some(text) = event.args else { return found };
        if json::fast_fields_with(text, |(key, value)| found.set(&key, value)).is_none() {
            found = KeyArgs::default();
            for (key, value) in Args::of(event).fields() {
                found.set(key, value.clone());
            }
        }
        found
    }

    /// Whether `key` is one of the key arguments.
    pub fn is_key(key: &str) -> bool {
        matches!(
            key,
            "hhash"
                | "fhash"
                | "ret"
                | "size_sum"
                | "hostname"
                | "fname"
                | "image_size"
                | "epoch"
                | "step"
                | "ppid"
                | "offset"
                | "whence"
                | "size"
                | "ret_len"
                | "newpath_hash"
                | "cmd_hash"
                | "flags"
                | "mode"
        )
    }

    /// Records `value` if `key` is one of the key arguments.
    pub fn set(&mut self, key: &str, value: RawValue<'a>) {
        if let Some(slot) = self.slot(key) {
            *slot = Some(value);
        }
    }

    /// Where the value of `key` goes, if it is one of the key arguments. The length is tested
    /// first, so that each comparison is of a known number of bytes (a load, not a call).
    #[inline]
    fn slot(&mut self, key: &str) -> Option<&mut Option<RawValue<'a>>> {
        let key = key.as_bytes();
        Some(match key.len() {
            3 if key == b"ret" => &mut self.ret,
            4 => match key {
                b"size" => &mut self.size,
                b"step" => &mut self.step,
                b"ppid" => &mut self.ppid,
                b"mode" => &mut self.mode,
                _ => return None,
            },
            5 => match key {
                b"hhash" => &mut self.hhash,
                b"fhash" => &mut self.fhash,
                b"fname" => &mut self.fname,
                b"epoch" => &mut self.epoch,
                b"flags" => &mut self.flags,
                _ => return None,
            },
            6 => match key {
                b"offset" => &mut self.offset,
                b"whence" => &mut self.whence,
                _ => return None,
            },
            7 if key == b"ret_len" => &mut self.ret_len,
            8 => match key {
                b"size_sum" => &mut self.size_sum,
                b"hostname" => &mut self.hostname,
                b"cmd_hash" => &mut self.cmd_hash,
                _ => return None,
            },
            10 if key == b"image_size" => &mut self.image_size,
            12 if key == b"newpath_hash" => &mut self.newpath_hash,
            _ => return None,
        })
    }

    /// The slot of `key` by the old table (kept for the test that holds [`KeyArgs::slot`] to
    /// [`KeyArgs::is_key`]).
    #[cfg(test)]
    fn slot_by_table(&mut self, key: &str) -> Option<&mut Option<RawValue<'a>>> {
        Some(match key.as_bytes() {
            b"hhash" => &mut self.hhash,
            b"fhash" => &mut self.fhash,
            b"ret" => &mut self.ret,
            b"size_sum" => &mut self.size_sum,
            b"hostname" => &mut self.hostname,
            b"fname" => &mut self.fname,
            b"image_size" => &mut self.image_size,
            b"epoch" => &mut self.epoch,
            b"step" => &mut self.step,
            b"ppid" => &mut self.ppid,
            b"offset" => &mut self.offset,
            b"whence" => &mut self.whence,
            b"size" => &mut self.size,
            b"ret_len" => &mut self.ret_len,
            b"newpath_hash" => &mut self.newpath_hash,
            b"cmd_hash" => &mut self.cmd_hash,
            b"flags" => &mut self.flags,
            b"mode" => &mut self.mode,
            _ => return None,
        })
    }
}

/// The fields of one event that statistics and aggregates need.
#[derive(Clone, Debug, PartialEq)]
pub struct EventFields<'a> {
    /// Phase.
    pub phase: Phase,
    /// `ph` was written as an integer (DFTracer 2.2).
    pub integer_phase: bool,
    /// `name`.
    pub name: Option<&'a str>,
    /// `cat`.
    pub cat: Option<&'a str>,
    /// `pid`.
    pub pid: Option<i64>,
    /// `tid`.
    pub tid: Option<i64>,
    /// `ts`.
    pub ts: Option<i64>,
    /// `dur`.
    pub dur: Option<i64>,
    /// `id`.
    pub id: Option<i64>,
    /// `type`.
    pub kind: Option<i64>,
    /// The event has `args`.
    pub has_args: bool,
    /// Key arguments.
    pub args: KeyArgs<'a>,
}

impl<'a> EventFields<'a> {
    /// The fields of a decoded event (`None` when it has no phase).
    pub fn from_event(event: &'a Event<'_>) -> Option<EventFields<'a>> {
        Some(EventFields {
            phase: event.phase?,
            integer_phase: event.evidence.has(ioscout_model::GenerationEvidence::INTEGER_PHASE),
            name: event.name.as_deref(),
            cat: event.cat.as_deref(),
            pid: event.pid,
            tid: event.tid,
            ts: event.ts,
            dur: event.dur,
            id: event.id,
            kind: event.kind,
            has_args: event.args.is_some(),
            args: KeyArgs::of(event),
        })
    }

    /// `ts + dur`, when `ts` is known.
    pub fn end(&self) -> Option<i64> {
        Some(self.ts?.saturating_add(self.dur.unwrap_or(0)))
    }
}

/// A plain integer value (at most 18 digits) at `index`: its end and value.
fn plain_integer(bytes: &[u8], index: usize) -> Option<(usize, i64)> {
    let end = json::scan_plain_integer(bytes, index)?;
    let value = bytes[index..end].iter().fold(0i64, |value, digit| value * 10 + i64::from(digit - b'0'));
    Some((end, value))
}

/// A string value at `index` (no escapes: the line was checked): its end and content.
fn string(text: &str, index: usize) -> Option<(usize, &str)> {
    let bytes = text.as_bytes();
    if bytes.get(index) != Some(&b'"') {
        return None;
    }
    let end = json::find_quote(bytes, index + 1)?;
    Some((end + 1, text.get(index + 1..end)?))
}

impl EventFields<'_> {
    /// Fields of no event, to be filled by [`decode_fields_into`].
    pub fn empty() -> EventFields<'static> {
        EventFields {
            phase: Phase::Other,
            integer_phase: false,
            name: None,
            cat: None,
            pid: None,
            tid: None,
            ts: None,
            dur: None,
            id: None,
            kind: None,
            has_args: false,
            args: KeyArgs::default(),
        }
    }
}

/// Decodes the fields of a common line straight from its bytes, or `None` (see the module
/// documentation) to leave the line to the full decoder.
pub fn decode_fields(line: &[u8]) -> Option<EventFields<'_>> {
    let mut fields = EventFields::empty();
    decode_fields_into(line, &mut fields).then_some(fields)
}

/// [`decode_fields`] into `fields`, which must be [`EventFields::empty`]: whether the line was
/// decoded (when not, `fields` holds a part of it and is to be dropped). The scan decodes every
/// line this way, into fields on its stack, so that the fields (some 600 bytes) are not copied
/// out of a return value for each event.
pub fn decode_fields_into<'a>(line: &'a [u8], fields: &mut EventFields<'a>) -> bool {
    decode_into(line, fields).is_some()
}

fn decode_into<'a>(line: &'a [u8], fields: &mut EventFields<'a>) -> Option<()> {
    let bytes = json::plain_object_line(line)?;
    // ASCII was checked: this cannot fail.
    let text = std::str::from_utf8(bytes).ok()?;
    decode_object(text, fields)
}

/// [`decode_fields_into`] for a line already known plain (cut from a block that
/// [`json::plain_lines`] passed): the same answer, without checking the line's bytes again.
pub(crate) fn decode_plain_fields_into<'a>(line: &'a str, fields: &mut EventFields<'a>) -> bool {
    json::object_body(line.as_bytes())
        .and_then(|body| line.get(..body.len()))
        .is_some_and(|text| decode_object(text, fields).is_some())
}

/// The fields of a plain object's text (`{` to `}`).
fn decode_object<'a>(text: &'a str, fields: &mut EventFields<'a>) -> Option<()> {
    match decode_ordered(text, fields) {
        Ordered::Taken => Some(()),
        Ordered::Declined => None,
        Ordered::Other => {
            *fields = EventFields::empty();
            decode_any_order(text, fields)
        }
    }
}

/// What the ordered path ([`decode_ordered`]) makes of `line`: [`json::Layout::Other`] when it
/// leaves the line to the general path, `Read(None)` when it declines it, else the fields. The
/// differential checks hold it to the general path on every line it answers.
pub(crate) fn decode_ordered_only(line: &[u8]) -> json::Layout<Option<EventFields<'_>>> {
    let Some(text) = json::plain_object_line(line).and_then(|bytes| std::str::from_utf8(bytes).ok()) else {
        return json::Layout::Other;
    };
    let mut fields = EventFields::empty();
    match decode_ordered(text, &mut fields) {
        Ordered::Taken => json::Layout::Read(Some(fields)),
        Ordered::Declined => json::Layout::Read(None),
        Ordered::Other => json::Layout::Other,
    }
}

/// The general path alone (keys in any order, whitespace allowed), for the differential checks.
pub(crate) fn decode_any_order_only(line: &[u8]) -> Option<EventFields<'_>> {
    let text = std::str::from_utf8(json::plain_object_line(line)?).ok()?;
    let mut fields = EventFields::empty();
    decode_any_order(text, &mut fields)?;
    Some(fields)
}

/// What [`decode_ordered`] made of a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ordered {
    /// Decoded: the fields are filled.
    Taken,
    /// A metadata or `C` event laid out as DFTracer writes it, which the general path declines
    /// too (it stops at the same `ph`, after the same valid prefix).
    Declined,
    /// Another layout: the general path decides.
    Other,
}

/// The fast path for the layout DFTracer writes, without whitespace (the keys read by
/// [`json::Ordered::head`], then `ph` and `args`, and nothing after them):
/// `{"id":I,"name":"S","cat":"S","type":I,"pid":I,"tid":I,"ts":I,"dur":I,"ph":P,"args":{...}}`.
/// Each key is checked where DFTracer puts it, so no key is searched for or compared against the
/// others. Any other layout or value is [`Ordered::Other`], which the general path
/// ([`decode_any_order`]) then reads; on a line it takes, it gives exactly what the general path
/// gives (held so by [`crate::event::decoders_agree`]).
fn decode_ordered<'a>(text: &'a str, fields: &mut EventFields<'a>) -> Ordered {
    ordered_layout(text, fields).unwrap_or(Ordered::Other)
}

fn ordered_layout<'a>(text: &'a str, fields: &mut EventFields<'a>) -> Option<Ordered> {
    let bytes = text.as_bytes();
    let mut cursor = json::Ordered::new(bytes);
    let head = cursor.head()?;
    // The parts are ranges of `bytes` between ASCII quotes of a line checked ASCII: the same
    // range of `text` is the string, with no second check of its bytes.
    let string = |part: Option<&'a [u8]>| match part {
        Some(part) => {
            let start = part.as_ptr() as usize - bytes.as_ptr() as usize;
            text.get(start..start + part.len()).map(Some)
        }
        None => Some(None),
    };
    fields.id = head.id;
    fields.name = string(head.name)?;
    fields.cat = string(head.cat)?;
    fields.kind = head.kind;
    fields.pid = head.pid;
    fields.tid = head.tid;
    fields.ts = head.ts;
    fields.dur = head.dur;
    if cursor.step_over(b'"') {
        fields.phase = match cursor.rest_of_string()? {
            b"X" => Phase::Complete,
            b"A" => Phase::Aggregated,
            b"M" | b"C" => return Some(Ordered::Declined),
            _ => Phase::Other,
        };
    } else {
        let start = cursor.at;
        cursor.at = json::scan_number(bytes, start)?;
        fields.phase = match &bytes[start..cursor.at] {
            b"1" => Phase::Complete,
            b"2" => Phase::Counter,
            b"3" => Phase::Aggregated,
            b"4" => return Some(Ordered::Declined),
            _ => Phase::Other,
        };
        fields.integer_phase = true;
    }
    if cursor.key(b"\"args\":{") {
        fields.has_args = true;
        let open = cursor.at - 1;
        cursor.at = if let Some(end) = compact_args(text, open, &mut fields.args) {
            end
        } else {
            fields.args = KeyArgs::default();
            args(text, open, &mut fields.args)?
        };
    }
    cursor.at_last_brace().then_some(Ordered::Taken)
}

/// The general path: the keys of the top-level object in any order, with whitespace.
fn decode_any_order<'a>(text: &'a str, fields: &mut EventFields<'a>) -> Option<()> {
    let bytes = text.as_bytes();
    let mut phase_seen = false;
    // A repeated `args` key replaces the first (as in the full decoder): only then is the
    // first one's content cleared.
    let mut args_seen = false;
    let mut index = json::skip_space(bytes, 1);
    if bytes.get(index) == Some(&b'}') {
        return None;
    }
    loop {
        let (key_end, key) = string(text, index)?;
        index = json::skip_space(bytes, key_end);
        if bytes.get(index) != Some(&b':') {
            return None;
        }
        index = json::skip_space(bytes, index + 1);
        let first = *bytes.get(index)?;
        index = match key.as_bytes() {
            b"ph" if first == b'"' => {
                let (value_end, value) = string(text, index)?;
                fields.phase = match value {
                    "X" => Phase::Complete,
                    "A" => Phase::Aggregated,
                    // Metadata needs the whole event; "C" may be aggregated (dft_cnt).
                    "M" | "C" => return None,
                    _ => Phase::Other,
                };
                fields.integer_phase = false;
                phase_seen = true;
                value_end
            }
            b"ph" => {
                let value_end = json::scan_number(bytes, index)?;
                fields.phase = match &bytes[index..value_end] {
                    b"1" => Phase::Complete,
                    b"2" => Phase::Counter,
                    b"3" => Phase::Aggregated,
                    b"4" => return None,
                    _ => Phase::Other,
                };
                fields.integer_phase = true;
                phase_seen = true;
                value_end
            }
            b"name" | b"cat" => {
                let (value_end, value) = string(text, index)?;
                if key == "name" {
                    fields.name = Some(value);
                } else {
                    fields.cat = Some(value);
                }
                value_end
            }
            b"id" | b"pid" | b"tid" | b"ts" | b"dur" | b"type" => {
                let (value_end, value) = if first == b'n' {
                    (json::literal(bytes, index, b"null")?, None)
                } else {
                    let (value_end, value) = plain_integer(bytes, index)?;
                    (value_end, Some(value))
                };
                match key.as_bytes() {
                    b"id" => fields.id = value,
                    b"pid" => fields.pid = value,
                    b"tid" => fields.tid = value,
                    b"ts" => fields.ts = value,
                    b"dur" => fields.dur = value,
                    _ => fields.kind = value,
                }
                value_end
            }
            b"args" if first == b'{' => {
                if args_seen {
                    fields.args = KeyArgs::default();
                }
                args_seen = true;
                fields.has_args = true;
                args(text, index, &mut fields.args)?
            }
            b"args" if first == b'n' => {
                if args_seen {
                    fields.args = KeyArgs::default();
                }
                args_seen = true;
                fields.has_args = false;
                json::literal(bytes, index, b"null")?
            }
            b"args" => return None,
            _ => json::skip_value(bytes, index)?,
        };
        index = json::skip_space(bytes, index);
        match bytes.get(index) {
            Some(b',') => index = json::skip_space(bytes, index + 1),
            Some(b'}') if index + 1 == bytes.len() => break,
            _ => return None,
        }
    }
    phase_seen.then_some(())
}

/// [`args`] for the object DFTracer writes (no spaces; each value a string or a number), in one
/// tight walk: the same key arguments and end, or `None` at the first byte of any other layout,
/// which [`args`] then reads from the start.
fn compact_args<'a>(text: &'a str, open: usize, found: &mut KeyArgs<'a>) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut index = open + 1;
    if bytes.get(index) == Some(&b'}') {
        return Some(index + 1);
    }
    loop {
        if bytes.get(index) != Some(&b'"') {
            return None;
        }
        let key_end = json::find_quote(bytes, index + 1)?;
        if bytes.get(key_end + 1) != Some(&b':') {
            return None;
        }
        let start = key_end + 2;
        let (end, string) = match *bytes.get(start)? {
            b'"' => (json::find_quote(bytes, start + 1)? + 1, true),
            b'-' | b'0'..=b'9' => (json::scan_number(bytes, start)?, false),
            _ => return None,
        };
        if let Some(slot) = found.slot(text.get(index + 1..key_end)?) {
            *slot = Some(if string {
                RawValue::Str(std::borrow::Cow::Borrowed(text.get(start + 1..end - 1)?))
            } else {
                RawValue::Number(text.get(start..end)?)
            });
        }
        index = end;
        match bytes.get(index) {
            Some(b',') => index += 1,
            Some(b'}') => return Some(index + 1),
            _ => return None,
        }
    }
}

/// Walks the `args` object at `index`, validating it and keeping the key arguments; returns the
/// index after it.
fn args<'a>(text: &'a str, mut index: usize, found: &mut KeyArgs<'a>) -> Option<usize> {
    let bytes = text.as_bytes();
    index = json::skip_space(bytes, index + 1);
    if bytes.get(index) == Some(&b'}') {
        return Some(index + 1);
    }
    loop {
        let (key_end, key) = string(text, index)?;
        index = json::skip_space(bytes, key_end);
        if bytes.get(index) != Some(&b':') {
            return None;
        }
        index = json::skip_space(bytes, index + 1);
        let end = json::skip_value(bytes, index)?;
        if let Some(slot) = found.slot(key) {
            *slot = Some(match bytes[index] {
                b'"' => RawValue::Str(std::borrow::Cow::Borrowed(text.get(index + 1..end - 1)?)),
                b'{' => RawValue::Object(text.get(index..end)?),
                b'[' => RawValue::Array(text.get(index..end)?),
                b't' => RawValue::Bool(true),
                b'f' => RawValue::Bool(false),
                b'n' => RawValue::Null,
                _ => RawValue::Number(text.get(index..end)?),
            });
        }
        index = json::skip_space(bytes, end);
        match bytes.get(index) {
            Some(b',') => index = json::skip_space(bytes, index + 1),
            Some(b'}') => return Some(index + 1),
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEYS: [&str; 18] = [
        "hhash",
        "fhash",
        "ret",
        "size_sum",
        "hostname",
        "fname",
        "image_size",
        "epoch",
        "step",
        "ppid",
        "offset",
        "whence",
        "size",
        "ret_len",
        "newpath_hash",
        "cmd_hash",
        "flags",
        "mode",
    ];

    /// The length-first dispatch puts each key argument where the plain table does, and takes
    /// nothing else (near misses of every length included).
    #[test]
    fn the_slot_dispatch_agrees_with_the_table() {
        let mut others: Vec<String> =
            vec!["", "r", "id", "rex", "hhasj", "fhash ", "count", "ret_le", "size_su"]
                .into_iter()
                .map(String::from)
                .collect();
        for key in KEYS {
            others.push(format!("{key}x"));
            others.push(key[..key.len() - 1].to_string());
            others.push(key.to_uppercase());
        }
        for key in KEYS.iter().map(|key| (*key).to_string()).chain(others) {
            let value = RawValue::Number("7");
            let mut by_slot = KeyArgs::default();
            let mut by_table = KeyArgs::default();
            if let Some(slot) = by_slot.slot(&key) {
                *slot = Some(value.clone());
            }
            if let Some(slot) = by_table.slot_by_table(&key) {
                *slot = Some(value);
            }
            assert_eq!(by_slot, by_table, "{key:?}");
            assert_eq!(by_slot != KeyArgs::default(), KeyArgs::is_key(&key), "{key:?}");
        }
    }

    /// The ordered path takes DFTracer's layouts (with and without `type`, `ph` as an integer or a
    /// letter, with and without `args`), declines its metadata lines as the general path does,
    /// and leaves other layouts to the general path.
    #[test]
    fn the_ordered_path_takes_dftracer_layouts_only() {
        let v2 = br#"{"id":4,"name":"open","cat":"POSIX","type":3,"pid":12,"tid":13,"ts":100,"dur":17,"ph":1,"args":{"hhash":"a6","flags":0,"fhash":"a3"}}"#;
        let v1 = br#"{"id":7,"name":"fopen","cat":"STDIO","pid":35,"tid":35,"ts":1727,"dur":191,"ph":"X","args":{"hhash":5692,"level":1,"fhash":33084,"p_idx":-1,"mode":"r"}}"#;
        for line in [&v2[..], &v1[..]] {
            let json::Layout::Read(ordered) = decode_ordered_only(line) else {
                panic!("not read: {}", String::from_utf8_lossy(line));
            };
            assert!(ordered.is_some(), "{}", String::from_utf8_lossy(line));
            assert_eq!(ordered, decode_any_order_only(line));
            assert_eq!(ordered, decode_fields(line));
        }
        let metadata: [&[u8]; 2] = [
            br#"{"id":1000,"name":"FH","cat":"dftracer","pid":35,"tid":35,"ph":"M","args":{"name":"/a","value":50461}}"#,
            br#"{"name":"HH","cat":"dftracer","type":1,"pid":12,"tid":12,"ph":4,"args":{"hhash":"a6","name":"n0"}}"#,
        ];
        for line in metadata {
            assert_eq!(
                decode_ordered_only(line),
                json::Layout::Read(None),
                "{}",
                String::from_utf8_lossy(line)
            );
            assert_eq!(decode_any_order_only(line), None);
        }
        let no_args = br#"{"id":4,"name":"open","cat":"POSIX","pid":12,"tid":13,"ts":100,"dur":17,"ph":1}"#;
        assert!(matches!(decode_ordered_only(no_args), json::Layout::Read(Some(fields)) if !fields.has_args));
        let declined: [&[u8]; 4] = [
            br#"{"name":"open","id":4,"cat":"POSIX","pid":12,"tid":13,"ts":100,"dur":17,"ph":1,"args":{}}"#,
            br#"{"id":4, "name":"open","cat":"POSIX","pid":12,"tid":13,"ts":100,"dur":17,"ph":1,"args":{}}"#,
            br#"{"id":4,"name":"open","cat":"POSIX","pid":12,"tid":13,"ts":null,"dur":17,"ph":1,"args":{}}"#,
            br#"{"id":4,"name":"open","cat":"POSIX","pid":12,"tid":13,"ts":100,"dur":17,"ph":1,"args":{},"x":1}"#,
        ];
        for line in declined {
            assert_eq!(decode_ordered_only(line), json::Layout::Other, "{}", String::from_utf8_lossy(line));
            assert!(decode_any_order_only(line).is_some(), "{}", String::from_utf8_lossy(line));
            assert_eq!(decode_fields(line), decode_any_order_only(line));
        }
    }
}
