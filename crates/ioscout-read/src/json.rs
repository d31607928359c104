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
    for _ in 0..3 {
        let trimmed = text.trim_end_matches(is_json_space);
        if let Some(rest) = trimmed.strip_suffix(',').or_else(|| trimmed.strip_suffix(']')) {
            text = rest;
        } else {
            text = trimmed;
            break;
        }
    }
    let text = text.trim_matches(is_json_space);
    if text.is_empty() {
        return Framed::Wrapper;
    }
    if text.starts_with('{') && text.ends_with('}') { Framed::Object(text) } else { Framed::NotAnObject }
}

fn is_json_space(character: char) -> bool {
    matches!(character, ' ' | '\t' | '\r' | '\n')
}

const MAX_DEPTH: usize = 64;

/// The fast path: the top-level fields of `object`, or `None` when the line needs the full parser
/// (escaped strings, invalid JSON, nesting deeper than 64).
pub fn fast_fields<'a>(object: &'a str, fields: &mut Vec<Field<'a>>) -> Option<()> {
    fields.clear();
    fast_fields_with(object, |field| fields.push(field))
}

/// The fast path, handing each top-level field to `visit` as it is found. When it returns `None`
/// some fields may already have been visited; the caller discards them.
pub fn fast_fields_with<'a>(object: &'a str, mut visit: impl FnMut(Field<'a>)) -> Option<()> {
    let mut cursor = Cursor { text: object, bytes: object.as_bytes(), position: 0 };
    cursor.skip_space();
    cursor.expect(b'{')?;
    cursor.skip_space();
    if cursor.peek() == Some(b'}') {
        cursor.position += 1;
    } else {
        loop {
            cursor.skip_space();
            let key = cursor.string()?;
            cursor.skip_space();
            cursor.expect(b':')?;
            cursor.skip_space();
            let value = cursor.value(0)?;
            visit((Cow::Borrowed(key), value));
            cursor.skip_space();
            match cursor.next()? {
                b',' => {}
                b'}' => break,
                _ => return None,
            }
        }
    }
    cursor.skip_space();
    (cursor.position == cursor.bytes.len()).then_some(())
}

struct Cursor<'a> {
    text: &'a str,
    bytes: &'a [u8],
    position: usize,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.position).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.position += 1;
        Some(byte)
    }

    fn expect(&mut self, wanted: u8) -> Option<()> {
        (self.next()? == wanted).then_some(())
    }

    fn skip_space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.position += 1;
        }
    }

    /// A string without escapes; its content, borrowed.
    fn string(&mut self) -> Option<&'a str> {
        self.expect(b'"')?;
        let start = self.position;
        let length = memchr::memchr2(b'"', b'\\', &self.bytes[start..])?;
        let end = start + length;
        if self.bytes[end] != b'"' {
            return None;
        }
        if self.bytes[start..end].iter().any(|&byte| byte < 0x20) {
            return None;
        }
        self.position = end + 1;
        self.text.get(start..end)
    }

    fn value(&mut self, depth: usize) -> Option<RawValue<'a>> {
        let start = self.position;
        match self.peek()? {
            b'"' => Some(RawValue::Str(Cow::Borrowed(self.string()?))),
            b'{' => {
                self.skip_object(depth + 1)?;
                Some(RawValue::Object(self.text.get(start..self.position)?))
            }
            b'[' => {
                self.skip_array(depth + 1)?;
                Some(RawValue::Array(self.text.get(start..self.position)?))
            }
            b't' => self.literal(b"true").map(|()| RawValue::Bool(true)),
            b'f' => self.literal(b"false").map(|()| RawValue::Bool(false)),
            b'n' => self.literal(b"null").map(|()| RawValue::Null),
            _ => {
                self.number()?;
                Some(RawValue::Number(self.text.get(start..self.position)?))
            }
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.position + word.len();
        (self.bytes.get(self.position..end)? == word).then(|| self.position = end)
    }

    fn digits(&mut self) -> usize {
        let start = self.position;
        while let Some(b'0'..=b'9') = self.peek() {
            self.position += 1;
        }
        self.position - start
    }

    /// JSON number grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    fn number(&mut self) -> Option<()> {
        if self.peek() == Some(b'-') {
            self.position += 1;
        }
        match self.peek()? {
            b'0' => self.position += 1,
            b'1'..=b'9' => {
                self.digits();
            }
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.position += 1;
            if self.digits() == 0 {
                return None;
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.position += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.position += 1;
            }
            if self.digits() == 0 {
                return None;
            }
        }
        Some(())
    }

    fn skip_object(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.expect(b'{')?;
        self.skip_space();
        if self.peek() == Some(b'}') {
            self.position += 1;
            return Some(());
        }
        loop {
            self.skip_space();
            self.string()?;
            self.skip_space();
            self.expect(b':')?;
            self.skip_space();
            self.value(depth)?;
            self.skip_space();
            match self.next()? {
                b',' => {}
                b'}' => return Some(()),
                _ => return None,
            }
        }
    }

    fn skip_array(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.expect(b'[')?;
        self.skip_space();
        if self.peek() == Some(b']') {
            self.position += 1;
            return Some(());
        }
        loop {
            self.skip_space();
            self.value(depth)?;
            self.skip_space();
            match self.next()? {
                b',' => {}
                b']' => return Some(()),
                _ => return None,
            }
        }
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
