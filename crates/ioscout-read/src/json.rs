//! JSON decoding of one trace line: a fast path that splits an object into its top-level fields
//! without building a tree, and a full `serde_json` parse as the fallback.
//!
//! # Overview
//!
//! [`frame_line`] strips what surrounds an event object in the wild (the `[` and `]` wrapper lines,
//! a leading `[`, trailing commas). [`fast_fields`] then walks the object once, validating it
//! strictly and returning each top-level value as a [`RawValue`] (nested objects as raw text). It
//! gives up (returns `None`) on anything it does not handle, such as escaped strings; [`full_fields`]
//! then parses the line with `serde_json` into the same representation. The differential tests and
//! the `decode_line` fuzz target check that whenever the fast path answers, it answers exactly
//! what the full parse answers.

use std::borrow::Cow;
use std::fmt;

use ioscout_model::RawValue;
use serde::Deserializer;
use serde::de::{MapAccess, Visitor};

/// One `(key, value)` pair of a JSON object.
pub type Field<'a> = (Cow<'a, str>, RawValue<'a>);

/// How a trimmed line is framed.
#[derive(Debug, PartialEq, Eq)]
pub enum Framed<'a> {
    /// Nothing but whitespace.
    Blank,
    /// A wrapper line: `[`, `]` (alone or with commas).
    Wrapper,
    /// An object candidate, from `{` to `}` inclusive.
    Object(&'a str),
    /// Something that is not an object.
    NotAnObject,
}

/// Strips whitespace, a leading `[`, trailing `,` and `]` from a line and says what is left.
pub fn frame_line(line: &str) -> Framed<'_> {
    let mut text = line.trim_matches(is_json_space);
    if text.is_empty() {
        return Framed::Blank;
    }
    if let Some(rest) = text.strip_prefix('[') {
        text = rest.trim_start_matches(is_json_space);
    }
    // Trailing `,` (Perfetto style) and a closing `]` glued to the last event.
    let end = line_body_end(text.as_bytes());
    // `line_body_end` cuts only ASCII bytes off the end, so `end` is a character boundary.
    let text = text.get(..end).unwrap_or(text).trim_matches(is_json_space);
    if text.is_empty() {
        return Framed::Wrapper;
    }
    if text.starts_with('{') && text.ends_with('}') { Framed::Object(text) } else { Framed::NotAnObject }
}

/// The framing rule every decoder shares: where a line's body ends once any run of trailing
/// JSON whitespace, `,` (Perfetto style) and `]` (the array's close glued to the last event) is
/// cut off. The full parser, the fast path, the counting path and the field decoders all frame
/// a line through this, so they agree on what a line is (`{"ph":""},,,,` is one object for all).
pub(crate) fn line_body_end(line: &[u8]) -> usize {
    let mut end = line.len();
    while end > 0 && matches!(line[end - 1], b' ' | b'\t' | b'\r' | b'\n' | b',' | b']') {
        end -= 1;
    }
    end
}

fn is_json_space(character: char) -> bool {
    matches!(character, ' ' | '\t' | '\r' | '\n')
}

const MAX_DEPTH: u32 = 64;

/// The fast path: the top-level fields of `object`, or `None` when the line needs the full parser
/// (escaped strings, control characters, invalid JSON, nesting deeper than 64).
pub fn fast_fields<'a>(object: &'a str, fields: &mut Vec<Field<'a>>) -> Option<()> {
    fields.clear();
    fast_fields_with(object, |field| fields.push(field))
}

/// The fast path, handing each top-level field to `visit` as it is found. When it returns `None`
/// some fields may already have been visited; the caller discards them.
///
/// Lines with a backslash or a control character anywhere are left to the full parser, so every
/// string here ends at the next quote, found with `memchr`. Nested values are validated by
/// [`skip_nested`] without being built.
pub fn fast_fields_with<'a>(object: &'a str, mut visit: impl FnMut(Field<'a>)) -> Option<()> {
    let bytes = object.as_bytes();
    if has_special_bytes(bytes) {
        return None;
    }
    let length = bytes.len();
    if bytes.first() != Some(&b'{') {
        return None;
    }
    let mut index = skip_space(bytes, 1);
    if bytes.get(index) == Some(&b'}') {
        return (skip_space(bytes, index + 1) == length).then_some(());
    }
    loop {
        if bytes.get(index) != Some(&b'"') {
            return None;
        }
        let key_end = find_quote(bytes, index + 1)?;
        let key = object.get(index + 1..key_end)?;
        index = skip_space(bytes, key_end + 1);
        if bytes.get(index) != Some(&b':') {
            return None;
        }
        index = skip_space(bytes, index + 1);
        let (value, next) = top_value(object, index)?;
        visit((Cow::Borrowed(key), value));
        index = skip_space(bytes, next);
        match bytes.get(index) {
            Some(b',') => index = skip_space(bytes, index + 1),
            Some(b'}') => return (skip_space(bytes, index + 1) == length).then_some(()),
            _ => return None,
        }
    }
}

/// Skips JSON whitespace. The first test is the common case (no whitespace: DFTracer writes
/// none between tokens) and costs one comparison.
#[inline]
pub(crate) fn skip_space(bytes: &[u8], mut index: usize) -> usize {
    if bytes.get(index).is_none_or(|&byte| byte > b' ') {
        return index;
    }
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(index) {
        index += 1;
    }
    index
}

/// The next quote at or after `from`: eight bytes at a time (an exact SWAR zero-byte test) over
/// the short strings that dominate traces (names, hashes), `memchr` beyond 64 bytes (paths,
/// command lines).
#[inline]
pub(crate) fn find_quote(bytes: &[u8], from: usize) -> Option<usize> {
    find_string_stop::<false>(bytes, from)
}

/// The next quote at or after `from`, or `None` when a backslash comes first (or no quote
/// does): the end of a string that holds no escape, for the paths that read a line nothing has
/// checked. One search for both bytes, as [`find_quote`]'s.
#[inline]
pub fn find_plain_quote(bytes: &[u8], from: usize) -> Option<usize> {
    find_string_stop::<true>(bytes, from).filter(|at| bytes[*at] == b'"')
}

/// The first quote (or, with `BACKSLASH`, quote or backslash) at or after `from`: eight bytes at
/// a time up to 64 bytes on, then `memchr`/`memchr2`. Both searches are this one, compiled for
/// each case.
#[inline]
fn find_string_stop<const BACKSLASH: bool>(bytes: &[u8], from: usize) -> Option<usize> {
    const LOW_SEVEN: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const QUOTES: u64 = 0x2222_2222_2222_2222;
    const BACKSLASHES: u64 = 0x5c5c_5c5c_5c5c_5c5c;
    let zero_bytes = |difference: u64| !(((difference & LOW_SEVEN) + LOW_SEVEN) | difference) & HIGH;
    let stops = |byte: u8| byte == b'"' || (BACKSLASH && byte == b'\\');
    let limit = bytes.len().min(from.saturating_add(64));
    let mut index = from;
    while index + 8 <= limit {
        let mut word = [0u8; 8];
        word.copy_from_slice(&bytes[index..index + 8]);
        let word = u64::from_le_bytes(word);
        let mut hits = zero_bytes(word ^ QUOTES);
        if BACKSLASH {
            hits |= zero_bytes(word ^ BACKSLASHES);
        }
        if hits != 0 {
            return Some(index + (hits.trailing_zeros() / 8) as usize);
        }
        index += 8;
    }
    if index + 8 > limit {
        while index < limit {
            if stops(bytes[index]) {
                return Some(index);
            }
            index += 1;
        }
    }
    let rest = bytes.get(index..)?;
    let found = if BACKSLASH { memchr::memchr2(b'"', b'\\', rest) } else { memchr::memchr(b'"', rest) };
    found.map(|offset| index + offset)
}

/// One value at `index`; returns it and the index after it.
#[inline]
fn top_value(object: &str, index: usize) -> Option<(RawValue<'_>, usize)> {
    let bytes = object.as_bytes();
    match *bytes.get(index)? {
        b'"' => {
            let end = find_quote(bytes, index + 1)?;
            Some((RawValue::Str(Cow::Borrowed(object.get(index + 1..end)?)), end + 1))
        }
        b'{' => {
            let end = skip_nested(bytes, index)?;
            Some((RawValue::Object(object.get(index..end)?), end))
        }
        b'[' => {
            let end = skip_nested(bytes, index)?;
            Some((RawValue::Array(object.get(index..end)?), end))
        }
        b't' => literal(bytes, index, b"true").map(|end| (RawValue::Bool(true), end)),
        b'f' => literal(bytes, index, b"false").map(|end| (RawValue::Bool(false), end)),
        b'n' => literal(bytes, index, b"null").map(|end| (RawValue::Null, end)),
        _ => {
            let end = scan_number(bytes, index)?;
            Some((RawValue::Number(object.get(index..end)?), end))
        }
    }
}

#[inline]
pub(crate) fn literal(bytes: &[u8], index: usize, word: &[u8]) -> Option<usize> {
    let end = index + word.len();
    (bytes.get(index..end)? == word).then_some(end)
}

/// JSON number grammar `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`; returns the end.
#[inline]
pub(crate) fn scan_number(bytes: &[u8], mut index: usize) -> Option<usize> {
    if bytes.get(index) == Some(&b'-') {
        index += 1;
    }
    match bytes.get(index)? {
        b'0' => index += 1,
        b'1'..=b'9' => {
            index += 1;
            while let Some(b'0'..=b'9') = bytes.get(index) {
                index += 1;
            }
        }
        _ => return None,
    }
    if bytes.get(index) == Some(&b'.') {
        index = some_digits(bytes, index + 1)?;
    }
    if let Some(b'e' | b'E') = bytes.get(index) {
        index += 1;
        if let Some(b'+' | b'-') = bytes.get(index) {
            index += 1;
        }
        index = some_digits(bytes, index)?;
    }
    Some(index)
}

/// The value of eight ASCII digits (the first in the lowest byte), or `None` when any byte is not
/// a digit: checked and converted as one word (SWAR), each step pairing neighbouring lanes.
#[inline]
fn eight_digits(chunk: [u8; 8]) -> Option<u64> {
    const HIGH_NIBBLES: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    const ZEROS: u64 = 0x3030_3030_3030_3030;
    let word = u64::from_le_bytes(chunk);
    // Every byte is 0x30-0x3F, and stays so with 6 added (no carry can cross: each is below 0x40).
    let digits =
        word & HIGH_NIBBLES == ZEROS && word.wrapping_add(0x0606_0606_0606_0606) & HIGH_NIBBLES == ZEROS;
    if !digits {
        return None;
    }
    let mut value = word & 0x0F0F_0F0F_0F0F_0F0F;
    value = value.wrapping_mul(10).wrapping_add(value >> 8) & 0x00FF_00FF_00FF_00FF;
    value = value.wrapping_mul(100).wrapping_add(value >> 16) & 0x0000_FFFF_0000_FFFF;
    value = value.wrapping_mul(10_000).wrapping_add(value >> 32) & 0xFFFF_FFFF;
    Some(value)
}

/// The end of a run of one or more digits at `index`.
#[inline]
fn some_digits(bytes: &[u8], index: usize) -> Option<usize> {
    let mut end = index;
    while let Some(b'0'..=b'9') = bytes.get(end) {
        end += 1;
    }
    (end > index).then_some(end)
}

/// A plain non-negative integer of at most 18 digits at `index` (the form DFTracer writes for
/// `ts`, `dur`, `pid`, ...); returns its end, or `None` for any other form.
#[inline]
pub(crate) fn scan_plain_integer(bytes: &[u8], index: usize) -> Option<usize> {
    let mut end = index;
    while let Some(b'0'..=b'9') = bytes.get(end) {
        end += 1;
    }
    plain_integer_spans(bytes, index, end).then_some(end)
}

/// Whether the digits `bytes[start..end]` are a plain integer as [`scan_plain_integer`] takes
/// one: 1 to 18 of them, no leading zero, and no fraction or exponent after them.
#[inline]
fn plain_integer_spans(bytes: &[u8], start: usize, end: usize) -> bool {
    let length = end - start;
    let valid = length > 0 && length <= 18 && (bytes.get(start) != Some(&b'0') || length == 1);
    valid && !matches!(bytes.get(end), Some(b'.' | b'e' | b'E'))
}

/// Validates the object or array starting at `index` (strings hold no escapes); returns the
/// index after it. Iterative, with the open containers kept as bits (1 = object) up to depth 64.
pub(crate) fn skip_nested(bytes: &[u8], mut index: usize) -> Option<usize> {
    // What may come next.
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Expect {
        /// A value (after `:` or `[` or `,` in an array).
        Value,
        /// A key, or `}` right after `{`.
        KeyOrClose,
        /// A key (after `,` in an object).
        Key,
        /// `,` or the closing bracket.
        CommaOrClose,
        /// A value or `]` right after `[`.
        ValueOrClose,
    }
    let mut kinds: u64 = 0;
    let mut depth: u32 = 0;
    let mut expect = Expect::Value;
    loop {
        index = skip_space(bytes, index);
        let byte = *bytes.get(index)?;
        match expect {
            Expect::Value | Expect::ValueOrClose => match byte {
                b'{' | b'[' => {
                    if depth >= MAX_DEPTH {
                        return None;
                    }
                    kinds = (kinds << 1) | u64::from(byte == b'{');
                    depth += 1;
                    index += 1;
                    expect = if byte == b'{' { Expect::KeyOrClose } else { Expect::ValueOrClose };
                    continue;
                }
                b']' if expect == Expect::ValueOrClose => {}
                b'"' => {
                    index = find_quote(bytes, index + 1)? + 1;
                    expect = Expect::CommaOrClose;
                    continue;
                }
                b't' => {
                    index = literal(bytes, index, b"true")?;
                    expect = Expect::CommaOrClose;
                    continue;
                }
                b'f' => {
                    index = literal(bytes, index, b"false")?;
                    expect = Expect::CommaOrClose;
                    continue;
                }
                b'n' => {
                    index = literal(bytes, index, b"null")?;
                    expect = Expect::CommaOrClose;
                    continue;
                }
                _ => {
                    index = scan_number(bytes, index)?;
                    expect = Expect::CommaOrClose;
                    continue;
                }
            },
            Expect::KeyOrClose | Expect::Key => match byte {
                b'"' => {
                    index = skip_space(bytes, find_quote(bytes, index + 1)? + 1);
                    if bytes.get(index) != Some(&b':') {
                        return None;
                    }
                    index += 1;
                    expect = Expect::Value;
                    continue;
                }
                b'}' if expect == Expect::KeyOrClose => {}
                _ => return None,
            },
            Expect::CommaOrClose => {
                if byte == b',' {
                    index += 1;
                    expect = if kinds & 1 == 1 { Expect::Key } else { Expect::Value };
                    continue;
                }
            }
        }
        // A closing bracket: it must match the innermost open container.
        let is_object = kinds & 1 == 1;
        if (byte == b'}') != is_object || !matches!(byte, b'}' | b']') || depth == 0 {
            return None;
        }
        kinds >>= 1;
        depth -= 1;
        index += 1;
        if depth == 0 {
            return Some(index);
        }
        expect = Expect::CommaOrClose;
    }
}

/// The bytes of a line that is exactly one JSON object (trailing spaces and commas trimmed) and
/// plain ASCII without escapes or control characters: the form the byte-level paths take.
/// `None` for anything else (blank, wrapper, non-ASCII, escaped, not an object).
pub(crate) fn plain_object_line(line: &[u8]) -> Option<&[u8]> {
    object_body(line).filter(|bytes| !has_special_or_non_ascii(bytes))
}

/// The body of a line (framed by [`line_body_end`]) when it opens with `{` and closes with `}`;
/// what [`plain_object_line`] then checks byte by byte, and a line of a block found plain by
/// [`plain_lines`] needs no more.
pub(crate) fn object_body(line: &[u8]) -> Option<&[u8]> {
    let bytes = &line[..line_body_end(line)];
    (bytes.first() == Some(&b'{') && bytes.last() == Some(&b'}')).then_some(bytes)
}

/// `bytes` as text when every byte is a newline or plain (printable ASCII, not a backslash):
/// then every line cut from it at newlines is plain as [`plain_object_line`] requires, and needs
/// no check of its own. The splitter checks each block of a unit's text once this way (one
/// vectorised pass and one UTF-8 conversion of the block), where each line cost two passes of its
/// own: the special-byte test, then the conversion to text.
pub(crate) fn plain_lines(bytes: &[u8]) -> Option<&str> {
    // Below 0x20 or at or above 0x80 in one comparison (the subtraction wraps both below 0x60),
    // newlines excepted; backslashes.
    let special = |byte: u8| {
        let outside = u8::from(byte.wrapping_sub(0x20) >= 0x60);
        (outside & !u8::from(byte == b'\n')) | u8::from(byte == b'\\')
    };
    let mut lanes = [0u8; 32];
    let mut chunks = bytes.chunks_exact(32);
    for chunk in &mut chunks {
        for (lane, &byte) in lanes.iter_mut().zip(chunk) {
            *lane |= special(byte);
        }
    }
    let mut any = lanes.iter().fold(0, |all, lane| all | lane);
    for &byte in chunks.remainder() {
        any |= special(byte);
    }
    if any & 1 != 0 {
        return None;
    }
    std::str::from_utf8(bytes).ok()
}

/// Whether any byte is a backslash, a control character or not ASCII.
#[inline]
pub(crate) fn has_special_or_non_ascii(bytes: &[u8]) -> bool {
    any_special::<true>(bytes)
}

/// Whether any byte is a backslash or a control character (such lines go to the full parser).
#[inline]
fn has_special_bytes(bytes: &[u8]) -> bool {
    any_special::<false>(bytes)
}

/// Whether any byte is a backslash or a control character, or (with `NON_ASCII`) at or above
/// 0x80. Written so that it vectorises: each 32-byte chunk is folded into 32 lanes (no early exit:
/// such bytes are rare, and a line is a few chunks), and the lanes are reduced once at the end
/// (reducing them at every chunk cost more than the comparisons).
#[inline]
fn any_special<const NON_ASCII: bool>(bytes: &[u8]) -> bool {
    let special =
        |byte: u8| u8::from(byte < 0x20) | u8::from(byte == b'\\') | u8::from(NON_ASCII && byte >= 0x80);
    let mut lanes = [0u8; 32];
    let mut chunks = bytes.chunks_exact(32);
    for chunk in &mut chunks {
        for (lane, &byte) in lanes.iter_mut().zip(chunk) {
            *lane |= special(byte);
        }
    }
    // The tail is checked as one more chunk, padded with spaces (not special).
    let tail = chunks.remainder();
    let mut padded = [b' '; 32];
    padded[..tail.len()].copy_from_slice(tail);
    for (lane, &byte) in lanes.iter_mut().zip(&padded) {
        *lane |= special(byte);
    }
    lanes.iter().fold(0, |all, lane| all | lane) != 0
}

/// What an ordered path ([`Ordered`]) made of a line: read (with its answer), or laid out
/// otherwise, for the general path to read.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Layout<T> {
    /// The line is in DFTracer's layout; the answer.
    Read(T),
    /// Another layout.
    Other,
}

/// The keys DFTracer writes before `ph`, as [`Ordered::head`] read them: each `None` when it is
/// not in its place.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Head<'a> {
    /// `id`.
    pub id: Option<i64>,
    /// The bytes of `name` (between its quotes).
    pub name: Option<&'a [u8]>,
    /// The bytes of `cat`.
    pub cat: Option<&'a [u8]>,
    /// `type`.
    pub kind: Option<i64>,
    /// `pid`.
    pub pid: Option<i64>,
    /// `tid`.
    pub tid: Option<i64>,
    /// `ts`.
    pub ts: Option<i64>,
    /// `dur`.
    pub dur: Option<i64>,
}

/// A cursor for the paths that read the layout DFTracer writes: its keys in a fixed order, without
/// spaces. Each key is tested where it must be, so none is searched for. The reader's paths use it
/// over a checked line (`plain_object_line`: one object of ASCII without escapes or control
/// characters); on other bytes it validates nothing beyond the layout (a string may then hold a
/// backslash, which the caller checks), and never panics.
pub struct Ordered<'a> {
    bytes: &'a [u8],
    /// The next byte to read.
    pub(crate) at: usize,
    /// A key was stepped over, so the next one comes after a comma.
    comma: bool,
}

impl<'a> Ordered<'a> {
    /// A cursor after the opening brace of `bytes` (whose first byte the caller checked).
    #[inline]
    pub fn new(bytes: &'a [u8]) -> Ordered<'a> {
        Ordered { bytes, at: 1, comma: false }
    }

    /// Steps over the key `word` (its quotes and colon, and the quote of a string value when
    /// given) if it comes next, after a comma unless it is the first key.
    #[inline]
    pub fn key(&mut self, word: &[u8]) -> bool {
        if self.comma && self.bytes.get(self.at) != Some(&b',') {
            return false;
        }
        let start = self.at + usize::from(self.comma);
        if self.bytes.get(start..start + word.len()) != Some(word) {
            return false;
        }
        self.at = start + word.len();
        self.comma = true;
        true
    }

    /// Reads the keys DFTracer writes before `ph`, in its order (`id`, `name`, `cat`, `type`,
    /// `pid`, `tid`, `ts`, `dur`; each may be missing), and steps over `"ph":`. `None` when a key
    /// in its place has a value of another form (numbers are plain integers, `name` and `cat`
    /// strings), or `ph` does not come next: the line is then laid out otherwise. This is the one
    /// place that knows DFTracer's key order. Always inlined, so that the fields it fills go
    /// straight to where each caller wants them (`examples/decode_speed.rs` measured a call out
    /// of line at 15 % of the field decoder's time).
    #[allow(clippy::inline_always)]
    #[inline(always)]
    pub fn head(&mut self) -> Option<Head<'a>> {
        self.head_of::<false>()
    }

    /// [`Ordered::head`] on a line nothing has checked: `None` also when `name` or `cat` holds a
    /// backslash (found by the same search as its closing quote).
    #[allow(clippy::inline_always)]
    #[inline(always)]
    pub fn plain_head(&mut self) -> Option<Head<'a>> {
        self.head_of::<true>()
    }

    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn head_of<const PLAIN: bool>(&mut self) -> Option<Head<'a>> {
        let mut head = Head::default();
        if self.key(b"\"id\":") {
            head.id = Some(self.integer()?);
        }
        if self.key(b"\"name\":\"") {
            head.name = Some(self.rest_of::<PLAIN>()?);
        }
        if self.key(b"\"cat\":\"") {
            head.cat = Some(self.rest_of::<PLAIN>()?);
        }
        if self.key(b"\"type\":") {
            head.kind = Some(self.integer()?);
        }
        if self.key(b"\"pid\":") {
            head.pid = Some(self.integer()?);
        }
        if self.key(b"\"tid\":") {
            head.tid = Some(self.integer()?);
        }
        if self.key(b"\"ts\":") {
            head.ts = Some(self.integer()?);
        }
        if self.key(b"\"dur\":") {
            head.dur = Some(self.integer()?);
        }
        self.key(b"\"ph\":").then_some(head)
    }

    /// Whether the next byte is `byte`.
    #[inline]
    pub fn next_is(&self, byte: u8) -> bool {
        self.bytes.get(self.at) == Some(&byte)
    }

    /// Steps over the next byte if it is `byte`.
    #[inline]
    pub fn step_over(&mut self, byte: u8) -> bool {
        let next = self.next_is(byte);
        self.at += usize::from(next);
        next
    }

    /// The index of the next byte.
    pub fn position(&self) -> usize {
        self.at
    }

    /// A plain integer next (1 to 18 digits, no leading zero, no fraction or exponent): its value.
    /// The digits are read and summed in one pass, eight at a time while they last (a `ts` has
    /// sixteen), then one at a time.
    #[inline]
    pub fn integer(&mut self) -> Option<i64> {
        let (bytes, start) = (self.bytes, self.at);
        let mut end = start;
        let mut value = 0u64;
        while let Some(eight) =
            bytes.get(end..end + 8).and_then(|chunk| <[u8; 8]>::try_from(chunk).ok()).and_then(eight_digits)
        {
            value = value.wrapping_mul(100_000_000).wrapping_add(eight);
            end += 8;
        }
        while let Some(digit) = bytes.get(end).map(|byte| byte.wrapping_sub(b'0')).filter(|digit| *digit <= 9)
        {
            value = value.wrapping_mul(10).wrapping_add(u64::from(digit));
            end += 1;
        }
        if !plain_integer_spans(bytes, start, end) {
            return None;
        }
        self.at = end;
        // At most 18 digits, so below 2^63: the cast is exact (and a caller that drops the value,
        // as the counting path does, leaves its arithmetic to be optimised away).
        Some(value as i64)
    }

    /// The content of a string whose opening quote was stepped over; steps over its closing one.
    #[inline]
    pub fn rest_of_string(&mut self) -> Option<&'a [u8]> {
        self.rest_of::<false>()
    }

    /// [`Ordered::rest_of_string`] for a string without escapes: `None` when a backslash comes
    /// before the closing quote.
    #[inline]
    pub fn rest_of_plain_string(&mut self) -> Option<&'a [u8]> {
        self.rest_of::<true>()
    }

    /// The rest of a string, ended by [`find_plain_quote`] when `PLAIN`, else by [`find_quote`].
    #[inline]
    fn rest_of<const PLAIN: bool>(&mut self) -> Option<&'a [u8]> {
        let end =
            if PLAIN { find_plain_quote(self.bytes, self.at)? } else { find_quote(self.bytes, self.at)? };
        let content = &self.bytes[self.at..end];
        self.at = end + 1;
        Some(content)
    }

    /// Whether the next byte is the line's last, a closing brace.
    #[inline]
    pub fn at_last_brace(&self) -> bool {
        self.at + 1 == self.bytes.len() && self.bytes[self.at] == b'}'
    }
}

/// Validates the object at `index` (its `{`), as [`skip_nested`] does, faster on the flat objects
/// of trace arguments: the keys and scalar values are stepped over in one loop, and only a
/// nested value goes through [`skip_nested`]. Returns the index after the object.
#[inline]
pub(crate) fn skip_object(bytes: &[u8], index: usize) -> Option<usize> {
    let mut index = skip_space(bytes, index + 1);
    if bytes.get(index) == Some(&b'}') {
        return Some(index + 1);
    }
    loop {
        if bytes.get(index) != Some(&b'"') {
            return None;
        }
        index = skip_space(bytes, find_quote(bytes, index + 1)? + 1);
        if bytes.get(index) != Some(&b':') {
            return None;
        }
        index = skip_space(bytes, index + 1);
        index = skip_space(bytes, skip_value(bytes, index)?);
        match bytes.get(index) {
            Some(b',') => index = skip_space(bytes, index + 1),
            Some(b'}') => return Some(index + 1),
            _ => return None,
        }
    }
}

/// Validates one value at `index` without building it; returns the index after it. Always
/// inlined: left to the compiler it is called out of line from the argument walks, which cost
/// 8 % of the field decoder's time (`examples/decode_speed.rs`).
#[allow(clippy::inline_always)]
#[inline(always)]
pub(crate) fn skip_value(bytes: &[u8], index: usize) -> Option<usize> {
    match *bytes.get(index)? {
        b'"' => find_quote(bytes, index + 1).map(|end| end + 1),
        b'{' | b'[' => skip_nested(bytes, index),
        b't' => literal(bytes, index, b"true"),
        b'f' => literal(bytes, index, b"false"),
        b'n' => literal(bytes, index, b"null"),
        _ => scan_number(bytes, index),
    }
}

/// The full parse: the top-level fields of `object` through `serde_json`, duplicates kept in order.
pub fn full_fields(object: &str) -> Result<Vec<Field<'_>>, serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_str(object);
    let pairs = deserializer.deserialize_map(PairsVisitor)?;
    deserializer.end()?;
    pairs.into_iter().map(|(key, raw)| Ok((key, classify(raw.get())?))).collect()
}

/// The fields of an object, fast path first, full parse as fallback.
pub fn object_fields(object: &str) -> Result<Vec<Field<'_>>, serde_json::Error> {
    let mut fields = Vec::new();
    if fast_fields(object, &mut fields).is_some() {
        return Ok(fields);
    }
    full_fields(object)
}

/// Classifies a raw JSON value that `serde_json` has already validated.
fn classify(raw: &str) -> Result<RawValue<'_>, serde_json::Error> {
    Ok(match raw.as_bytes().first() {
        Some(b'"') => RawValue::Str(decode_string(raw)?),
        Some(b'{') => RawValue::Object(raw),
        Some(b'[') => RawValue::Array(raw),
        Some(b't') => RawValue::Bool(true),
        Some(b'f') => RawValue::Bool(false),
        Some(b'n') => RawValue::Null,
        _ => RawValue::Number(raw),
    })
}

fn decode_string(raw: &str) -> Result<Cow<'_, str>, serde_json::Error> {
    if raw.len() >= 2 && !raw.as_bytes().contains(&b'\\') {
        return Ok(Cow::Borrowed(&raw[1..raw.len() - 1]));
    }
    serde_json::from_str::<String>(raw).map(Cow::Owned)
}

type Pairs<'de> = Vec<(Cow<'de, str>, &'de serde_json::value::RawValue)>;

struct PairsVisitor;

impl<'de> Visitor<'de> for PairsVisitor {
    type Value = Pairs<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut pairs = Vec::new();
        while let Some(key) = map.next_key::<Key<'de>>()? {
            pairs.push((key.0, map.next_value()?));
        }
        Ok(pairs)
    }
}

struct Key<'de>(Cow<'de, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a string key")
    }

    fn visit_borrowed_str<E: serde::de::Error>(self, value: &'de str) -> Result<Self::Value, E> {
        Ok(Key(Cow::Borrowed(value)))
    }

    fn visit_str<E: serde::de::Error>(self, value: &str) -> Result<Self::Value, E> {
        Ok(Key(Cow::Owned(value.to_string())))
    }

    fn visit_string<E: serde::de::Error>(self, value: String) -> Result<Self::Value, E> {
        Ok(Key(Cow::Owned(value)))
    }
}

#[cfg(test)]
mod tests {
    /// Eight digits read as one word give the number they spell, and any other byte among them
    /// gives `None`.
    #[test]
    fn eight_digits_read_as_one_word() {
        for value in [0u64, 1, 9, 10, 12_345_678, 99_999_999, 10_000_000, 40_302_010] {
            let text = format!("{value:08}");
            let chunk = <[u8; 8]>::try_from(text.as_bytes()).ok();
            assert_eq!(chunk.and_then(eight_digits), Some(value), "{text}");
        }
        for bad in
            [*b"1234567a", *b"/2345678", *b":2345678", *b"1234 678", *b"\xff2345678", *b"\xfa\xfa345678"]
        {
            assert_eq!(eight_digits(bad), None, "{bad:?}");
        }
    }

    /// A block is plain exactly when each of its bytes is a newline or passes the line check,
    /// wherever the byte falls (in the 32-byte lanes or in the tail).
    #[test]
    fn plain_lines_agree_with_the_line_check() {
        for byte in 0..=255u8 {
            for (length, at) in [(1, 0), (31, 30), (32, 5), (33, 32), (64, 63), (70, 40), (97, 96)] {
                let mut block = vec![b'a'; length];
                block[at] = byte;
                let expected = byte == b'\n' || !has_special_or_non_ascii(&[byte]);
                assert_eq!(plain_lines(&block).is_some(), expected, "byte {byte:#x} at {at} of {length}");
            }
        }
        assert_eq!(plain_lines(b"{\"a\":1}\n{\"b\":2}\n"), Some("{\"a\":1}\n{\"b\":2}\n"));
        assert_eq!(plain_lines(b""), Some(""));
    }

    proptest::proptest! {
        /// `Ordered::integer` reads what `str::parse` reads from a plain integer (1 to 18 digits, no
        /// leading zero) and then stands after it; any other form is refused and the cursor stays.
        #[test]
        fn ordered_integers_read_as_parse_reads(
            digits in "[0-9]{1,22}",
            after in proptest::sample::select(vec!["", ",", "}", ".5", "e3", "E", "x", "\"", "-"]),
        ) {
            let text = format!("{{{digits}{after}");
            let mut cursor = Ordered::new(text.as_bytes());
            let plain = digits.len() <= 18 && (digits.len() == 1 || !digits.starts_with('0'));
            let fraction = after.starts_with(['.', 'e', 'E']);
            let expected = if plain && !fraction { digits.parse::<i64>().ok() } else { None };
            let read = cursor.integer();
            proptest::prop_assert_eq!(read, expected);
            let position = if read.is_some() { 1 + digits.len() } else { 1 };
            proptest::prop_assert_eq!(cursor.position(), position);
        }

        /// The plain end of a string is the first quote when no backslash comes before it, at
        /// any length (either side of the eight-byte words and of the 64 bytes searched by word),
        /// from any start.
        #[test]
        fn a_plain_quote_is_the_first_quote_before_any_backslash(
            bytes in proptest::collection::vec(proptest::sample::select(b"ab\"\\x".to_vec()), 0..150),
            from in 0usize..160,
        ) {
            let first = bytes.iter().skip(from).position(|byte| matches!(byte, b'"' | b'\\'));
            let expected = first.map(|offset| from + offset).filter(|at| bytes[*at] == b'"');
            proptest::prop_assert_eq!(find_plain_quote(&bytes, from), expected);
        }
    }

    use super::*;

    fn both(text: &str) -> (Option<Vec<Field<'_>>>, Option<Vec<Field<'_>>>) {
        let mut fast = Vec::new();
        let fast = fast_fields(text, &mut fast).map(|()| fast);
        (fast, full_fields(text).ok())
    }

    #[test]
    fn framing_handles_every_wrapper() {
        assert_eq!(frame_line("["), Framed::Wrapper);
        assert_eq!(frame_line("]"), Framed::Wrapper);
        assert_eq!(frame_line("  "), Framed::Blank);
        assert_eq!(frame_line(" {\"a\":1},"), Framed::Object("{\"a\":1}"));
        assert_eq!(frame_line("[{\"a\":1}]"), Framed::Object("{\"a\":1}"));
        assert_eq!(frame_line("{\"a\":1}]\r"), Framed::Object("{\"a\":1}"));
        assert_eq!(frame_line("garbage"), Framed::NotAnObject);
        assert_eq!(frame_line("{\"a\":1"), Framed::NotAnObject);
    }

    /// Fuzz reproducer `decode_line/trailing-commas.bin`: the full decoder stripped at most three
    /// trailing commas, the counting path any number; one framing rule now serves both.
    #[test]
    fn framing_strips_any_run_of_trailing_commas_like_the_byte_paths() {
        assert_eq!(frame_line("{\"ph\":\"\"},,,,"), Framed::Object("{\"ph\":\"\"}"));
        assert_eq!(frame_line("{\"a\":1} , ] ,,]"), Framed::Object("{\"a\":1}"));
        assert_eq!(plain_object_line(b"{\"a\":1},,,,,,"), Some(&b"{\"a\":1}"[..]));
        assert_eq!(frame_line("],,"), Framed::Wrapper);
    }

    #[test]
    fn fast_path_agrees_with_full_parse_on_typical_lines() {
        let line = r#"{"id":1,"name":"read","cat":"POSIX","pid":12,"tid":12,"ts":1700000000000021,"dur":8,"ph":"X","args":{"fhash":"ddf9402c3d986301","ret":-1.5e3,"ok":true,"n":null,"list":[1,{"a":[]}],"big":17868160079272185648}}"#;
        let (fast, full) = both(line);
        assert!(fast.is_some());
        assert_eq!(fast, full);
    }

    #[test]
    fn fast_path_declines_escapes_and_full_parse_decodes_them() {
        let line = r#"{"name":"a\"b","cat":"x\u0041"}"#;
        let (fast, full) = both(line);
        assert!(fast.is_none());
        let full = full.unwrap_or_default();
        assert_eq!(full[0].1, RawValue::Str("a\"b".into()));
        assert_eq!(full[1].1, RawValue::Str("xA".into()));
    }

    #[test]
    fn both_paths_reject_malformed_json() {
        for line in [
            r#"{"a":01}"#,
            r#"{"a":1,}"#,
            r#"{"a" 1}"#,
            r#"{"a":tru}"#,
            r#"{"a":{"b":1,}}"#,
            r#"{"a":1}}"#,
            r#"{"a":"x	y"}"#,
            r#"{"a":-}"#,
            r#"{"a":1.}"#,
            r#"{"a":[1,]}"#,
        ] {
            let (fast, full) = both(line);
            assert!(fast.is_none(), "fast accepted {line}");
            assert!(full.is_none(), "full accepted {line}");
        }
    }

    #[test]
    fn duplicate_keys_are_kept_in_order() {
        let (fast, full) = both(r#"{"a":1,"a":2}"#);
        assert_eq!(fast, full);
        assert_eq!(fast.map(|fields| fields.len()), Some(2));
    }
}
