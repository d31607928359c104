//! The ioscout filter language: `--where` expressions parsed into a [`Predicate`] and evaluated
//! against events.
//!
//! # Overview
//!
//! [`Predicate::parse`] turns text such as
//! `cat == "POSIX" and name in ("read", "pread64") and dur > 1000 and file ~ "/data/"` into a
//! checked expression tree; [`Predicate::matches`] evaluates it on one event with the trace's
//! [`HashTables`], so `host` and `file` compare against resolved names. The index (a later stage)
//! will use the same tree to prune chunks; here it drives a correct full scan.
//!
//! # Language
//!
//! - fields: `name`, `cat`, `pid`, `tid`, `ts`, `dur`, `end` (`ts + dur`), `id`, `type`, `ph`,
//!   `host`, `file`, `args.<key>`; the names of a Darshan DXT segment are aliases of these:
//!   `rank` (pid), `op` (name), `module` (cat), `start` (ts), `offset` (`args.offset`) and
//!   `length` (`args.ret`, the bytes a read or write moved, as in the trace events);
//! - comparisons: `==` (or `=`), `!=`, `<`, `<=`, `>`, `>=`, `in (v1, v2, ...)`, `~ "regex"`,
//!   `!~ "regex"`;
//! - values: `"strings"` (with `\"` and `\\` escapes), numbers, bare words (read as strings);
//! - `and`, `or`, `not`, parentheses; `and` binds tighter than `or`.
//!
//! A comparison on a field the event lacks is false, except `!=` and `!~`, which are true (they
//! are `not (==)` and `not (~)`). `ph` accepts `X`/`M`/`C`/`A`, `1`-`4`, or `complete`, `metadata`,
//! `counter`, `aggregated`. Numbers compare numerically (integers exactly, so 64-bit hashes work);
//! `args.<key>` compares numerically when both sides are numbers and as text otherwise.
//!
//! # Example
//!
//! ```
//! use ioscout_query::Predicate;
//! let predicate = Predicate::parse(r#"cat == "POSIX" and (dur > 10 or name ~ "^read")"#).unwrap();
//! assert!(predicate.uses_args() == false);
//! assert!(Predicate::parse("dur >").is_err());
//! ```

use std::borrow::Cow;
use std::cmp::Ordering;

pub mod aggregate;
pub mod plan;
pub mod prune;

use ioscout_model::{Event, HashTables, Phase, RawValue};
use ioscout_read::event::Args;
use ioscout_read::{resolve_file, resolve_host};
use regex::Regex;

/// A malformed expression, with the byte position where it went wrong.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("invalid --where expression at position {position}: {message}\n  {expression}\n  {caret}")]
pub struct QueryError {
    /// What is wrong.
    pub message: String,
    /// Byte offset into the expression.
    pub position: usize,
    /// The expression.
    pub expression: String,
    /// A caret line pointing at `position`.
    pub caret: String,
}

/// A field an expression can name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Field {
    /// `name`.
    Name,
    /// `cat`.
    Cat,
    /// `pid`.
    Pid,
    /// `tid`.
    Tid,
    /// `ts`.
    Ts,
    /// `dur`.
    Dur,
    /// `end`: `ts + dur`.
    End,
    /// `id`.
    Id,
    /// `type`.
    Kind,
    /// `ph`.
    Phase,
    /// `host` (resolved).
    Host,
    /// `file` (resolved).
    File,
    /// `args.<key>`.
    Arg(String),
}

impl Field {
    fn is_numeric(&self) -> bool {
        matches!(
            self,
            Field::Pid | Field::Tid | Field::Ts | Field::Dur | Field::End | Field::Id | Field::Kind
        )
    }
}

/// A literal value.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    /// A string.
    Text(String),
    /// A number, kept as written.
    Number(String),
}

impl Literal {
    fn text(&self) -> &str {
        match self {
            Literal::Text(text) | Literal::Number(text) => text,
        }
    }
}

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operator {
    /// `==`.
    Equal,
    /// `!=`.
    NotEqual,
    /// `<`.
    Less,
    /// `<=`.
    LessOrEqual,
    /// `>`.
    Greater,
    /// `>=`.
    GreaterOrEqual,
}

/// An expression tree.
#[derive(Clone, Debug)]
pub enum Expression {
    /// `field op value`.
    Compare(Field, Operator, Literal),
    /// `field in (values)`.
    In(Field, Vec<Literal>),
    /// `field ~ regex` (`negated` for `!~`).
    Matches(Field, Regex, bool),
    /// `a and b`.
    And(Box<Expression>, Box<Expression>),
    /// `a or b`.
    Or(Box<Expression>, Box<Expression>),
    /// `not a`.
    Not(Box<Expression>),
}

/// A parsed, checked filter.
#[derive(Clone, Debug)]
pub struct Predicate {
    expression: Expression,
    uses_args: bool,
}

impl Predicate {
    /// Parses an expression.
    pub fn parse(text: &str) -> Result<Predicate, QueryError> {
        let tokens = tokenize(text)?;
        let mut parser = Parser { tokens, position: 0, text };
        let expression = parser.or()?;
        if let Some(token) = parser.tokens.get(parser.position) {
            return Err(error(text, token.start, "unexpected text after the expression"));
        }
        let uses_args = uses_args(&expression);
        Ok(Predicate { expression, uses_args })
    }

    /// Whether evaluation needs the event's `args` (args, host or file fields).
    pub fn uses_args(&self) -> bool {
        self.uses_args
    }

    /// The expression tree.
    pub fn expression(&self) -> &Expression {
        &self.expression
    }

    /// Whether `event` matches, resolving hashes through `tables`.
    pub fn matches(&self, event: &Event<'_>, tables: &HashTables) -> bool {
        let args = if self.uses_args { Args::of(event) } else { Args::default() };
        let context = Context { event, args: &args, tables };
        context.evaluate(&self.expression)
    }

    /// Whether `event` matches, with its `args` already parsed.
    pub fn matches_with_args(&self, event: &Event<'_>, args: &Args<'_>, tables: &HashTables) -> bool {
        Context { event, args, tables }.evaluate(&self.expression)
    }
}

fn uses_args(expression: &Expression) -> bool {
    match expression {
        Expression::Compare(field, ..) | Expression::In(field, _) | Expression::Matches(field, ..) => {
            matches!(field, Field::Arg(_) | Field::Host | Field::File)
        }
        Expression::And(left, right) | Expression::Or(left, right) => uses_args(left) || uses_args(right),
        Expression::Not(inner) => uses_args(inner),
    }
}

fn error(text: &str, position: usize, message: impl Into<String>) -> QueryError {
    QueryError {
        message: message.into(),
        position,
        expression: text.to_string(),
        caret: format!("{}^", " ".repeat(text[..position.min(text.len())].chars().count())),
    }
}

#[derive(Clone, Debug, PartialEq)]
enum TokenKind {
    Word(String),
    Text(String),
    Number(String),
    Symbol(&'static str),
}

#[derive(Clone, Debug)]
struct Token {
    kind: TokenKind,
    start: usize,
}

fn tokenize(text: &str) -> Result<Vec<Token>, QueryError> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut position = 0;
    while position < bytes.len() {
        let start = position;
        let byte = bytes[position];
        if byte.is_ascii_whitespace() {
            position += 1;
            continue;
        }
        let symbol = ["==", "!=", "<=", ">=", "!~", "=", "<", ">", "~", "(", ")", ","]
            .into_iter()
            .find(|symbol| text[position..].starts_with(symbol));
        if let Some(symbol) = symbol {
            position += symbol.len();
            let symbol = if symbol == "=" { "==" } else { symbol };
            tokens.push(Token { kind: TokenKind::Symbol(symbol), start });
            continue;
        }
        if byte == b'"' || byte == b'\'' {
            let (value, end) = string_literal(text, position)?;
            tokens.push(Token { kind: TokenKind::Text(value), start });
            position = end;
            continue;
        }
        if byte.is_ascii_digit() || (byte == b'-' && bytes.get(position + 1).is_some_and(u8::is_ascii_digit))
        {
            position += 1;
            while position < bytes.len()
                && (bytes[position].is_ascii_alphanumeric() || b".+-".contains(&bytes[position]))
            {
                if b"+-".contains(&bytes[position]) && !b"eE".contains(&bytes[position - 1]) {
                    break;
                }
                position += 1;
            }
            let number = &text[start..position];
            if !number.parse::<f64>().is_ok_and(f64::is_finite) {
                return Err(error(text, start, format!("{number:?} is not a number")));
            }
            // Every field is a 64-bit integer (hashes unsigned) or a float: an integer literal no
            // field can hold would silently match nothing.
            let integer_like =
                number.strip_prefix('-').unwrap_or(number).bytes().all(|digit| digit.is_ascii_digit());
            if integer_like && number.parse::<i64>().is_err() && number.parse::<u64>().is_err() {
                return Err(error(
                    text,
                    start,
                    format!("integer {number} is out of range: fields hold {} to {}", i64::MIN, u64::MAX),
                ));
            }
            tokens.push(Token { kind: TokenKind::Number(number.to_string()), start });
            continue;
        }
        if byte.is_ascii_alphabetic() || byte == b'_' {
            while position < bytes.len()
                && (bytes[position].is_ascii_alphanumeric() || b"_.-/".contains(&bytes[position]))
            {
                position += 1;
            }
            tokens.push(Token { kind: TokenKind::Word(text[start..position].to_string()), start });
            continue;
        }
        let character = text[position..].chars().next().unwrap_or('?');
        return Err(error(text, start, format!("unexpected character {character:?}")));
    }
    Ok(tokens)
}

fn string_literal(text: &str, start: usize) -> Result<(String, usize), QueryError> {
    let quote = text[start..].chars().next().unwrap_or('"');
    let mut value = String::new();
    let mut characters = text[start + 1..].char_indices();
    while let Some((offset, character)) = characters.next() {
        match character {
            '\\' => match characters.next() {
                Some((_, escaped)) => value.push(escaped),
                None => break,
            },
            found if found == quote => return Ok((value, start + 1 + offset + 1)),
            other => value.push(other),
        }
    }
    Err(error(text, start, "unterminated string"))
}

struct Parser<'t> {
    tokens: Vec<Token>,
    position: usize,
    text: &'t str,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&TokenKind> {
        self.tokens.get(self.position).map(|token| &token.kind)
    }

    fn here(&self) -> usize {
        self.tokens.get(self.position).map_or(self.text.len(), |token| token.start)
    }

    fn keyword(&mut self, word: &str) -> bool {
        if let Some(TokenKind::Word(found)) = self.peek()
            && found.eq_ignore_ascii_case(word)
        {
            self.position += 1;
            return true;
        }
        false
    }

    fn symbol(&mut self, symbol: &str) -> bool {
        if self.peek()
            == Some(&TokenKind::Symbol(match symbol {
                "(" => "(",
                ")" => ")",
                "," => ",",
                _ => return false,
            }))
        {
            self.position += 1;
            return true;
        }
        false
    }

    fn or(&mut self) -> Result<Expression, QueryError> {
        let mut left = self.and()?;
        while self.keyword("or") {
            let right = self.and()?;
            left = Expression::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expression, QueryError> {
        let mut left = self.unary()?;
        while self.keyword("and") {
            let right = self.unary()?;
            left = Expression::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Expression, QueryError> {
        if self.keyword("not") {
            return Ok(Expression::Not(Box::new(self.unary()?)));
        }
        if self.symbol("(") {
            let inner = self.or()?;
            if !self.symbol(")") {
                return Err(error(self.text, self.here(), "expected ')'"));
            }
            return Ok(inner);
        }
        self.comparison()
    }

    fn field(&mut self) -> Result<Field, QueryError> {
        let start = self.here();
        let Some(TokenKind::Word(word)) = self.peek().cloned() else {
            return Err(error(
                self.text,
                start,
                "expected a field name (name, cat, pid, tid, ts, dur, end, ph, host, file, args.<key>)",
            ));
        };
        self.position += 1;
        let field = match word.as_str() {
            "name" | "op" => Field::Name,
            "cat" | "module" => Field::Cat,
            "pid" | "rank" => Field::Pid,
            "tid" => Field::Tid,
            "ts" | "start" => Field::Ts,
            "dur" => Field::Dur,
            "end" => Field::End,
            "offset" => Field::Arg("offset".into()),
            "length" => Field::Arg("ret".into()),
            "id" => Field::Id,
            "type" => Field::Kind,
            "ph" => Field::Phase,
            "host" => Field::Host,
            "file" => Field::File,
            other => match other.strip_prefix("args.") {
                Some(key) if !key.is_empty() => Field::Arg(key.to_string()),
                _ => {
                    return Err(error(
                        self.text,
                        start,
                        format!(
                            "unknown field {other:?} (fields: name, cat, pid, tid, ts, dur, end, id, type, ph, host, file, args.<key>; for DXT segments also rank, op, module, start, offset, length)"
                        ),
                    ));
                }
            },
        };
        Ok(field)
    }

    fn literal(&mut self, field: &Field) -> Result<Literal, QueryError> {
        let start = self.here();
        let literal = match self.peek().cloned() {
            Some(TokenKind::Text(text)) => Literal::Text(text),
            Some(TokenKind::Number(number)) => Literal::Number(number),
            Some(TokenKind::Word(word))
                if !["and", "or", "not", "in"].contains(&word.to_ascii_lowercase().as_str()) =>
            {
                Literal::Text(word)
            }
            _ => return Err(error(self.text, start, "expected a value (a \"string\" or a number)")),
        };
        self.position += 1;
        if field.is_numeric() && literal_number(literal.text()).is_none() {
            return Err(error(self.text, start, format!("{} needs a number", field_name(field))));
        }
        if *field == Field::Phase && phase_of_literal(&literal).is_none() {
            return Err(error(
                self.text,
                start,
                "ph is one of X, M, C, A (or 1-4, or complete, metadata, counter, aggregated)",
            ));
        }
        Ok(literal)
    }

    fn comparison(&mut self) -> Result<Expression, QueryError> {
        let field = self.field()?;
        let start = self.here();
        if self.keyword("in") {
            if !self.symbol("(") {
                return Err(error(self.text, self.here(), "expected '(' after in"));
            }
            let mut values = vec![self.literal(&field)?];
            while self.symbol(",") {
                values.push(self.literal(&field)?);
            }
            if !self.symbol(")") {
                return Err(error(self.text, self.here(), "expected ',' or ')'"));
            }
            return Ok(Expression::In(field, values));
        }
        let Some(TokenKind::Symbol(symbol)) = self.peek().cloned() else {
            return Err(error(self.text, start, "expected an operator (== != < <= > >= in ~ !~)"));
        };
        self.position += 1;
        if symbol == "~" || symbol == "!~" {
            let pattern_start = self.here();
            let pattern = self.literal(&Field::Name)?;
            let regex = Regex::new(pattern.text())
                .map_err(|problem| error(self.text, pattern_start, format!("bad regex: {problem}")))?;
            return Ok(Expression::Matches(field, regex, symbol == "!~"));
        }
        let operator = match symbol {
            "==" => Operator::Equal,
            "!=" => Operator::NotEqual,
            "<" => Operator::Less,
            "<=" => Operator::LessOrEqual,
            ">" => Operator::Greater,
            ">=" => Operator::GreaterOrEqual,
            _ => return Err(error(self.text, start, "expected an operator (== != < <= > >= in ~ !~)")),
        };
        if field == Field::Phase && !matches!(operator, Operator::Equal | Operator::NotEqual) {
            return Err(error(self.text, start, "ph can only be compared with == or !="));
        }
        let literal = self.literal(&field)?;
        Ok(Expression::Compare(field, operator, literal))
    }
}

fn field_name(field: &Field) -> String {
    match field {
        Field::Name => "name".into(),
        Field::Cat => "cat".into(),
        Field::Pid => "pid".into(),
        Field::Tid => "tid".into(),
        Field::Ts => "ts".into(),
        Field::Dur => "dur".into(),
        Field::End => "end".into(),
        Field::Id => "id".into(),
        Field::Kind => "type".into(),
        Field::Phase => "ph".into(),
        Field::Host => "host".into(),
        Field::File => "file".into(),
        Field::Arg(key) => format!("args.{key}"),
    }
}

fn phase_of_literal(literal: &Literal) -> Option<Phase> {
    let text = literal.text();
    Some(match text.to_ascii_lowercase().as_str() {
        "x" | "1" | "complete" => Phase::Complete,
        "m" | "4" | "metadata" => Phase::Metadata,
        "c" | "2" | "counter" => Phase::Counter,
        "a" | "3" | "aggregated" => Phase::Aggregated,
        _ => return None,
    })
}

/// A number, exactly when it is an integer.
#[derive(Clone, Copy, Debug)]
enum Number {
    Integer(i128),
    Float(f64),
}

fn literal_number(text: &str) -> Option<Number> {
    let text = text.trim();
    if let Ok(integer) = text.parse::<i128>() {
        return Some(Number::Integer(integer));
    }
    text.parse::<f64>().ok().filter(|value| value.is_finite()).map(Number::Float)
}

fn compare_numbers(left: Number, right: Number) -> Option<Ordering> {
    match (left, right) {
        (Number::Integer(left), Number::Integer(right)) => Some(left.cmp(&right)),
        (Number::Integer(left), Number::Float(right)) => (left as f64).partial_cmp(&right),
        (Number::Float(left), Number::Integer(right)) => left.partial_cmp(&(right as f64)),
        (Number::Float(left), Number::Float(right)) => left.partial_cmp(&right),
    }
}

/// A field's value on one event.
enum Value<'v> {
    Integer(i64),
    Text(Cow<'v, str>),
    Raw(&'v RawValue<'v>),
    Phase(Phase),
}

struct Context<'c, 'e> {
    event: &'c Event<'e>,
    args: &'c Args<'e>,
    tables: &'c HashTables,
}

impl Context<'_, '_> {
    fn value(&self, field: &Field) -> Option<Value<'_>> {
        let event = self.event;
        Some(match field {
            Field::Name => Value::Text(Cow::Borrowed(event.name.as_deref()?)),
            Field::Cat => Value::Text(Cow::Borrowed(event.cat.as_deref()?)),
            Field::Pid => Value::Integer(event.pid?),
            Field::Tid => Value::Integer(event.tid?),
            Field::Ts => Value::Integer(event.ts?),
            Field::Dur => Value::Integer(event.dur?),
            Field::End => Value::Integer(event.end()?),
            Field::Id => Value::Integer(event.id?),
            Field::Kind => Value::Integer(event.kind?),
            Field::Phase => Value::Phase(event.phase?),
            Field::Host => Value::Text(resolve_host(self.args, self.tables)?),
            Field::File => Value::Text(resolve_file(self.args, self.tables)?),
            Field::Arg(key) => Value::Raw(self.args.get(key)?),
        })
    }

    fn evaluate(&self, expression: &Expression) -> bool {
        match expression {
            Expression::And(left, right) => self.evaluate(left) && self.evaluate(right),
            Expression::Or(left, right) => self.evaluate(left) || self.evaluate(right),
            Expression::Not(inner) => !self.evaluate(inner),
            Expression::Compare(field, Operator::NotEqual, literal) => {
                !self.compare(field, Operator::Equal, literal)
            }
            Expression::Compare(field, operator, literal) => self.compare(field, *operator, literal),
            Expression::In(field, literals) => {
                literals.iter().any(|literal| self.compare(field, Operator::Equal, literal))
            }
            Expression::Matches(field, regex, negated) => {
                let found = self.value(field).is_some_and(|value| regex.is_match(&text_of(&value)));
                found != *negated
            }
        }
    }

    fn compare(&self, field: &Field, operator: Operator, literal: &Literal) -> bool {
        let Some(value) = self.value(field) else { return false };
        let ordering = match &value {
            Value::Phase(phase) => {
                return phase_of_literal(literal) == Some(*phase) && operator == Operator::Equal;
            }
            Value::Integer(integer) => literal_number(literal.text())
                .and_then(|number| compare_numbers(Number::Integer(i128::from(*integer)), number)),
            Value::Raw(raw) => {
                let numeric = match (raw, literal) {
                    (RawValue::Number(text), _)
                    | (RawValue::Str(Cow::Borrowed(text)), Literal::Number(_)) => {
                        literal_number(text).zip(literal_number(literal.text()))
                    }
                    (RawValue::Str(Cow::Owned(text)), Literal::Number(_)) => {
                        literal_number(text).zip(literal_number(literal.text()))
                    }
                    _ => None,
                };
                match numeric {
                    Some((left, right)) => compare_numbers(left, right),
                    None => Some(raw.as_text().as_ref().cmp(literal.text())),
                }
            }
            Value::Text(text) => Some(text.as_ref().cmp(literal.text())),
        };
        ordering.is_some_and(|ordering| ordering_holds(operator, ordering))
    }
}

/// Whether `operator` holds for two values that compare as `ordering`.
pub(crate) fn ordering_holds(operator: Operator, ordering: Ordering) -> bool {
    match operator {
        Operator::Equal => ordering == Ordering::Equal,
        Operator::NotEqual => ordering != Ordering::Equal,
        Operator::Less => ordering == Ordering::Less,
        Operator::LessOrEqual => ordering != Ordering::Greater,
        Operator::Greater => ordering == Ordering::Greater,
        Operator::GreaterOrEqual => ordering != Ordering::Less,
    }
}

fn text_of<'v>(value: &'v Value<'v>) -> Cow<'v, str> {
    match value {
        Value::Integer(integer) => Cow::Owned(integer.to_string()),
        Value::Text(text) => Cow::Borrowed(text.as_ref()),
        Value::Raw(raw) => raw.as_text(),
        Value::Phase(phase) => Cow::Borrowed(phase.letter()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ioscout_read::event::{Line, decode_line};

    const READ: &str = r#"{"id":5,"name":"read","cat":"POSIX","pid":7,"tid":8,"ts":100,"dur":50,"ph":1,"args":{"hhash":"aa","fhash":"ff","ret":4096,"big":17868160079272185648,"epoch":"2"}}"#;

    /// A single `=` is the documented alias of `==` (README, the module docs), not an error.
    #[test]
    fn a_single_equals_sign_is_equality() {
        assert_eq!(
            format!("{:?}", Predicate::parse(r#"cat = "POSIX""#)),
            format!("{:?}", Predicate::parse(r#"cat == "POSIX""#))
        );
        assert!(check(r#"cat = "POSIX" and pid = 7"#));
        assert!(!check(r#"cat = "STDIO""#));
    }

    fn check(expression: &str) -> bool {
        let mut tables = HashTables::default();
        tables.hosts.insert(ioscout_model::HashToken("aa".into()), "node1".into());
        tables.files.insert(ioscout_model::HashToken("ff".into()), "/data/train/file_1.npz".into());
        let Ok(Line::Event(event)) = decode_line(READ.as_bytes()) else { panic!("fixture is not an event") };
        match Predicate::parse(expression) {
            Ok(predicate) => predicate.matches(&event, &tables),
            Err(problem) => panic!("{problem}"),
        }
    }

    #[test]
    fn comparisons_on_every_field() {
        assert!(check(r#"name == "read""#));
        assert!(check("name = read"));
        assert!(check("name =read and pid==7"));
        assert!(check(r#"cat != "STDIO""#));
        assert!(check(
            "pid == 7 and tid == 8 and id == 5 and ts >= 100 and ts <= 100 and dur > 49 and dur < 51"
        ));
        assert!(check("ph == X and ph == 1 and ph == complete and ph != M"));
        assert!(check(r#"host == "node1" and file ~ "/train/""#));
        assert!(check(r#"file !~ "^/tmp""#));
        assert!(check("args.ret == 4096 and args.ret > 100 and args.big == 17868160079272185648"));
        assert!(!check("args.big == 17868160079272185647"));
        assert!(check("args.epoch == 2 and args.epoch == \"2\""));
        // `end` is ts + dur; the DXT names are the same fields under Darshan's words.
        assert!(check("end == 150 and end > 149 and not end > 150"));
        assert!(check(
            r#"rank == 7 and op == "read" and module == "POSIX" and start == 100 and length == 4096"#
        ));
        assert!(!check("rank == 8 or length != 4096 or offset == 0"));
        assert!(check(r#"name in ("write", "read") and not (dur > 1000)"#));
        assert!(check(r#"name == "open" or cat == "POSIX" and dur == 50"#));
        assert!(!check(r#"(name == "open" or cat == "POSIX") and dur == 51"#));
    }

    #[test]
    fn missing_fields_are_false_except_negations() {
        assert!(!check("args.missing == 1"));
        assert!(check("args.missing != 1"));
        assert!(!check(r#"args.missing ~ ".""#));
        assert!(check(r#"args.missing !~ ".""#));
        assert!(!check("type == 3"));
    }

    #[test]
    fn bad_expressions_are_located_errors() {
        for (text, position) in [
            ("dur >", 5),
            ("size == 3", 0),
            ("pid == abc", 7),
            ("ph > X", 3),
            ("ph == Q", 6),
            ("name ~ \"(\"", 7),
            ("(name == a", 10),
            ("name == a b", 10),
            ("name == \"open", 8),
            ("name # 1", 5),
            // Integer literals no 64-bit field holds, and non-finite numbers, matched nothing.
            ("pid == 99999999999999999999999", 7),
            ("dur > -9223372036854775809", 6),
            ("dur < 1e400", 6),
        ] {
            match Predicate::parse(text) {
                Ok(_) => panic!("{text} parsed"),
                Err(problem) => assert_eq!(problem.position, position, "{text}: {problem}"),
            }
        }
    }

    #[test]
    fn the_widest_integer_literals_still_parse() {
        for text in
            ["pid == 18446744073709551615", "dur > -9223372036854775808", "args.fhash == 9223372036854775808"]
        {
            assert!(Predicate::parse(text).is_ok(), "{text}");
        }
    }

    #[test]
    fn uses_args_only_when_needed() {
        assert!(Predicate::parse("dur > 1").is_ok_and(|predicate| !predicate.uses_args()));
        assert!(Predicate::parse("file ~ x").is_ok_and(|predicate| predicate.uses_args()));
    }
}
