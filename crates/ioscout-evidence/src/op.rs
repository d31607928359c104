//! One traced POSIX or STDIO call reduced to what the derived counters need ([`Op`]): which
//! process, which file, what kind of call, the offset and byte count it carries, and when it
//! ran. The first step of the evidence flow: [`crate::fold`] decodes each event of a trace into
//! an `Op`, the replay ([`crate::posix`], [`crate::stdio`]) turns the ops of a (process, file)
//! into Darshan's counters, and [`crate::metadata`] sums metadata calls by operation.

use ioscout_model::{Event, Phase, RawValue};
use ioscout_read::fields::EventFields;

/// The Darshan module a traced call belongs to, by its category.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Module {
    /// `POSIX`.
    Posix,
    /// `STDIO`.
    Stdio,
}

impl Module {
    /// The module of category `cat`, when it is one the evidence reads.
    pub fn of(cat: &str) -> Option<Module> {
        // Categories as DFTracer writes them first (one comparison each), then in any case.
        match cat.as_bytes() {
            b"POSIX" => return Some(Module::Posix),
            b"STDIO" => return Some(Module::Stdio),
            bytes if bytes.len() != 5 => return None,
            _ => {}
        }
        if cat.eq_ignore_ascii_case("POSIX") {
            Some(Module::Posix)
        } else if cat.eq_ignore_ascii_case("STDIO") {
            Some(Module::Stdio)
        } else {
            None
        }
    }
}

/// What a call does to a file's counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// `open`, `open64`, `openat`, `creat`, ...: opens the file and rewinds the position.
    PosixOpen,
    /// `dup`, `dup2`, `dup3`: another descriptor on an open file (counted as an open, no rewind).
    PosixDup,
    /// `read`, `readv`, and with an explicit offset `pread`, `preadv`.
    PosixRead,
    /// `write`, `writev`, and with an explicit offset `pwrite`, `pwritev`.
    PosixWrite,
    /// `lseek`, `lseek64`: the new position is the call's return value.
    PosixSeek,
    /// The stat family.
    PosixStat,
    /// `fsync`.
    PosixFsync,
    /// `fdatasync`.
    PosixFdatasync,
    /// `mmap`, `mmap64`.
    PosixMmap,
    /// `close`.
    PosixClose,
    /// `rename`: this file is the source.
    PosixRename,
    /// Any other POSIX call on the file (`unlink`, `access`, `mkdir`, `ftruncate`, `fcntl`, ...):
    /// no Darshan counter, but counted by operation.
    PosixOther,
    /// `fopen`, `fopen64`, `freopen`.
    StdioOpen,
    /// `fdopen`.
    StdioFdopen,
    /// `fread`, `fgets`, `fgetc`, `fscanf`, ...
    StdioRead,
    /// `fwrite`, `fputs`, `fprintf`, ...
    StdioWrite,
    /// `fflush`.
    StdioFlush,
    /// `fseek`, `fseeko`, `fsetpos`, `rewind`.
    StdioSeek,
    /// `ftell`, `ftello`: reports the position without moving it.
    StdioTell,
    /// `fclose`.
    StdioClose,
    /// Any other STDIO call.
    StdioOther,
}

impl OpKind {
    /// The kind of the call `name` in category `cat` (`POSIX` or `STDIO`), when it is one the
    /// evidence reads.
    pub fn of(cat: &str, name: &str) -> Option<OpKind> {
        Module::of(cat).map(|module| OpKind::in_module(module, name))
    }

    /// The kind of the call `name` of `module`.
    pub fn in_module(module: Module, name: &str) -> OpKind {
        match module {
            Module::Posix => posix_kind(name),
            Module::Stdio => stdio_kind(name),
        }
    }

    /// Whether the call belongs to STDIO.
    pub fn is_stdio(self) -> bool {
        matches!(
            self,
            OpKind::StdioOpen
                | OpKind::StdioFdopen
                | OpKind::StdioRead
                | OpKind::StdioWrite
                | OpKind::StdioFlush
                | OpKind::StdioSeek
                | OpKind::StdioTell
                | OpKind::StdioClose
                | OpKind::StdioOther
        )
    }

    /// Whether the call moves data (a read or a write).
    pub fn is_data(self) -> bool {
        matches!(self, OpKind::PosixRead | OpKind::PosixWrite | OpKind::StdioRead | OpKind::StdioWrite)
    }
}

fn posix_kind(name: &str) -> OpKind {
    match name {
        "open" | "open64" | "openat" | "openat64" | "creat" | "creat64" | "__open_2" | "__open64_2" => {
            OpKind::PosixOpen
        }
        "dup" | "dup2" | "dup3" => OpKind::PosixDup,
        "read" | "readv" | "pread" | "pread64" | "preadv" | "preadv64" | "preadv2" | "preadv64v2" => {
            OpKind::PosixRead
        }
        "write" | "writev" | "pwrite" | "pwrite64" | "pwritev" | "pwritev64" | "pwritev2" | "pwritev64v2" => {
            OpKind::PosixWrite
        }
        "lseek" | "lseek64" => OpKind::PosixSeek,
        "stat" | "stat64" | "lstat" | "lstat64" | "fstat" | "fstat64" | "__xstat" | "__xstat64"
        | "__lxstat" | "__lxstat64" | "__fxstat" | "__fxstat64" | "fstatat" | "fstatat64" | "newfstatat"
        | "__fxstatat" | "__fxstatat64" | "statx" => OpKind::PosixStat,
        "fsync" => OpKind::PosixFsync,
        "fdatasync" => OpKind::PosixFdatasync,
        "mmap" | "mmap64" => OpKind::PosixMmap,
        "close" => OpKind::PosixClose,
        "rename" | "renameat" | "renameat2" => OpKind::PosixRename,
        _ => OpKind::PosixOther,
    }
}

fn stdio_kind(name: &str) -> OpKind {
    match name {
        "fopen" | "fopen64" | "freopen" | "freopen64" => OpKind::StdioOpen,
        "fdopen" => OpKind::StdioFdopen,
        // Darshan wraps `_IO_getc`/`_IO_putc` but not `getc`/`putc` (which glibc programs call):
        // those count as other calls here too, so that the records match Darshan's.
        "fread" | "fgets" | "fgetc" | "_IO_getc" | "getw" | "fscanf" | "vfscanf" | "__isoc99_fscanf"
        | "__isoc99_vfscanf" => OpKind::StdioRead,
        "fwrite" | "fputs" | "fputc" | "_IO_putc" | "putw" | "fprintf" | "vfprintf" => OpKind::StdioWrite,
        "fflush" => OpKind::StdioFlush,
        "fseek" | "fseeko" | "fseeko64" | "fsetpos" | "fsetpos64" | "rewind" => OpKind::StdioSeek,
        "ftell" | "ftello" | "ftello64" => OpKind::StdioTell,
        "fclose" => OpKind::StdioClose,
        _ => OpKind::StdioOther,
    }
}

/// How to seek: `SEEK_SET`, `SEEK_CUR`, `SEEK_END` (`whence` 0, 1, 2), or `rewind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Whence {
    /// From the start.
    Set,
    /// From the current position.
    Current,
    /// From the end (the size is not in the trace).
    End,
}

/// One call, reduced. Times are microseconds in the trace's clock. Names and files are
/// indices into the tables of whoever collects the ops ([`crate::fold`]), so an op holds no
/// allocation; the optional byte count and offset are packed with presence bits (a unit buffers
/// every op it decodes until the replay, so its size is the scan's memory traffic).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Op {
    /// What the call does.
    pub kind: OpKind,
    /// `whence` of a seek.
    pub whence: Option<Whence>,
    /// A `pread`/`pwrite`-style call: it names its offset and does not move the position.
    pub positional: bool,
    /// The call failed (a negative `ret`).
    pub failed: bool,
    /// An open for appending (`O_APPEND`, `fopen` mode `a`): writes go to the file's end, which
    /// the trace does not record.
    pub append: bool,
    /// Which of `bytes` and `offset` are known ([`Op::HAS_BYTES`], [`Op::HAS_OFFSET`]).
    pub(crate) present: u8,
    /// The function name as traced (`pread64`, `unlink`, ...), for the per-operation table.
    pub name: u32,
    /// The file.
    pub file: u32,
    /// For `rename`: the target file.
    pub target: Option<u32>,
    /// The process.
    pub pid: i64,
    /// Start time.
    pub start: i64,
    /// End time (start plus duration).
    pub end: i64,
    pub(crate) bytes: i64,
    pub(crate) offset: i64,
    /// Where its line is (resolved to a line number when the unit's place in the file is known).
    pub line: ioscout_read::LinePosition,
}

impl Op {
    const HAS_BYTES: u8 = 1;
    const HAS_OFFSET: u8 = 2;

    /// Bytes moved for a data call (`ret`, times `size` for `fread`/`fwrite`); the new position
    /// for `lseek` and `ftell`; `None` when the trace does not say.
    pub fn bytes(&self) -> Option<i64> {
        (self.present & Self::HAS_BYTES != 0).then_some(self.bytes)
    }

    /// The explicit offset of `pread`/`pwrite`, or the offset argument of a seek.
    pub fn offset(&self) -> Option<i64> {
        (self.present & Self::HAS_OFFSET != 0).then_some(self.offset)
    }
}

/// A decoded call before its names are interned: the op, the file it names, its function name
/// and, for `rename`, the target's key (borrowed from the line: nothing is allocated per call).
#[derive(Clone, Debug, PartialEq)]
pub struct Call<'a> {
    /// The op, with `name`, `file` and `target` still zero and `None`.
    pub op: Op,
    /// The file.
    pub key: KeyRef<'a>,
    /// The function name.
    pub name: &'a str,
    /// The target of a rename, as an `fhash` token.
    pub target: Option<KeyRef<'a>>,
}

/// A [`FileKey`] borrowed from a decoded line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyRef<'a> {
    /// An `fhash` token.
    Hash(std::borrow::Cow<'a, str>),
    /// An inline path.
    Path(std::borrow::Cow<'a, str>),
    /// No file.
    None,
}

impl FileKey {
    /// Whether this is the key `key` borrows.
    pub fn is(&self, key: &KeyRef<'_>) -> bool {
        match (self, key) {
            (FileKey::Hash(own), KeyRef::Hash(other)) | (FileKey::Path(own), KeyRef::Path(other)) => {
                own.as_ref() == other.as_ref()
            }
            (FileKey::None, KeyRef::None) => true,
            _ => false,
        }
    }
}

impl KeyRef<'_> {
    /// The owned key.
    pub fn to_key(&self) -> FileKey {
        match self {
            KeyRef::Hash(token) => FileKey::Hash(token.as_ref().into()),
            KeyRef::Path(path) => FileKey::Path(path.as_ref().into()),
            KeyRef::None => FileKey::None,
        }
    }
}

/// The file an event names: `fhash` (DFTracer 1.x and 2.x, resolved through `FH` records) or the
/// inline `fname` (2023 traces).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FileKey {
    /// An `fhash` token, as written.
    Hash(Box<str>),
    /// An inline path.
    Path(Box<str>),
    /// A call on no file (`fork`, `waitpid`, `getcwd`, ...): counted by operation only.
    None,
}

/// `O_APPEND` on Linux (the flags DFTracer records are the call's, as the program passed them).
const O_APPEND: i64 = 0o2000;

fn integer(value: Option<&RawValue<'_>>) -> Option<i64> {
    value.and_then(RawValue::as_i64)
}

fn whence(value: Option<i64>) -> Option<Whence> {
    match value? {
        0 => Some(Whence::Set),
        1 => Some(Whence::Current),
        2 => Some(Whence::End),
        _ => None,
    }
}

/// Why an event could not be reduced to an op although it is a POSIX or STDIO call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unusable {
    /// No `fhash` or `fname`: the call cannot be tied to a file.
    NoFile,
    /// No `pid`.
    NoProcess,
    /// No `ts`.
    NoTime,
}

impl Unusable {
    /// What is missing, in words.
    pub fn reason(self) -> &'static str {
        match self {
            Unusable::NoFile => "no fhash or fname",
            Unusable::NoProcess => "no pid",
            Unusable::NoTime => "no ts",
        }
    }
}

/// Reduces `event` to the file it names and its op (names not interned). `Ok(None)`: not a
/// POSIX or STDIO call.
pub fn decode(event: &Event<'_>) -> Result<Option<(FileKey, Op)>, Unusable> {
    if event.phase != Some(Phase::Complete) {
        return Ok(None);
    }
    match EventFields::from_event(event) {
        Some(fields) => Ok(decode_fields(&fields)?.map(|call| (call.key.to_key(), call.op))),
        None => Ok(None),
    }
}

/// Reduces the decoded fields of a complete event to a call (the scan's fast path).
pub fn decode_fields<'a>(fields: &'a EventFields<'_>) -> Result<Option<Call<'a>>, Unusable> {
    if fields.phase != Phase::Complete {
        return Ok(None);
    }
    let (Some(cat), Some(name)) = (fields.cat, fields.name) else { return Ok(None) };
    match OpKind::of(cat, name) {
        Some(kind) => decode_call(fields, name, kind).map(Some),
        None => Ok(None),
    }
}

/// [`decode_fields`] for a complete event whose call `name` is known to be of `kind` (a scan
/// that interns names keeps their kinds, and so matches each name once).
pub fn decode_call<'a>(
    fields: &'a EventFields<'_>,
    name: &'a str,
    kind: OpKind,
) -> Result<Call<'a>, Unusable> {
    let args = &fields.args;
    let key = match (&args.fhash, &args.fname) {
        (Some(hash), _) if !matches!(hash, RawValue::Null) => KeyRef::Hash(hash.as_text()),
        (_, Some(path)) if !matches!(path, RawValue::Null) => KeyRef::Path(path.as_text()),
        _ if matches!(kind, OpKind::PosixOther | OpKind::StdioOther) => KeyRef::None,
        _ => return Err(Unusable::NoFile),
    };
    let pid = fields.pid.ok_or(Unusable::NoProcess)?;
    let start = fields.ts.ok_or(Unusable::NoTime)?;
    let end = start.saturating_add(fields.dur.unwrap_or(0).max(0));
    let ret = integer(args.ret.as_ref()).or_else(|| integer(args.ret_len.as_ref()));
    let failed = ret.is_some_and(|value| value < 0);
    let bytes = match kind {
        OpKind::StdioRead | OpKind::StdioWrite if name == "fread" || name == "fwrite" => {
            let size = integer(args.size.as_ref()).unwrap_or(1);
            ret.map(|items| items.saturating_mul(size))
        }
        OpKind::StdioWrite if matches!(name, "fputc" | "_IO_putc") => Some(1),
        OpKind::StdioRead if matches!(name, "fgetc" | "_IO_getc") => Some(1),
        OpKind::StdioWrite if name == "putw" => Some(4),
        OpKind::StdioRead if name == "getw" => Some(4),
        _ => ret,
    };
    let positional = matches!(kind, OpKind::PosixRead | OpKind::PosixWrite) && name.starts_with('p');
    let offset = match kind {
        OpKind::PosixRead | OpKind::PosixWrite if positional => integer(args.offset.as_ref()),
        OpKind::StdioSeek if name == "rewind" => Some(0),
        OpKind::PosixSeek | OpKind::StdioSeek => integer(args.offset.as_ref()),
        _ => None,
    };
    let whence = match kind {
        OpKind::StdioSeek if name == "rewind" => Some(Whence::Set),
        OpKind::PosixSeek | OpKind::StdioSeek => whence(integer(args.whence.as_ref())),
        _ => None,
    };
    let target = match kind {
        OpKind::PosixRename => args.newpath_hash.as_ref().map(|value| KeyRef::Hash(value.as_text())),
        _ => None,
    };
    let append = match kind {
        OpKind::PosixOpen => integer(args.flags.as_ref()).is_some_and(|flags| flags & O_APPEND != 0),
        OpKind::StdioOpen | OpKind::StdioFdopen => {
            args.mode.as_ref().is_some_and(|mode| mode.as_text().trim_start().starts_with('a'))
        }
        _ => false,
    };
    let present =
        if bytes.is_some() { Op::HAS_BYTES } else { 0 } | if offset.is_some() { Op::HAS_OFFSET } else { 0 };
    Ok(Call {
        op: Op {
            kind,
            whence,
            positional,
            failed,
            append,
            present,
            name: 0,
            file: 0,
            target: None,
            pid,
            start,
            end,
            bytes: bytes.unwrap_or(0),
            offset: offset.unwrap_or(0),
            line: ioscout_read::LinePosition::default(),
        },
        key,
        name,
        target,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ioscout_read::event::{Line, decode_line};

    fn op(line: &str) -> (FileKey, Op) {
        let Ok(Line::Event(event)) = decode_line(line.as_bytes()) else { panic!("not an event: {line}") };
        match decode(&event) {
            Ok(Some(decoded)) => decoded,
            other => panic!("not an op: {other:?}"),
        }
    }

    #[test]
    fn pread_keeps_its_offset_and_fread_counts_items_times_size() {
        let (key, pread) = op(
            r#"{"id":5,"name":"pread64","cat":"POSIX","pid":7,"tid":7,"ts":10,"dur":3,"ph":"X","args":{"fhash":"ab","ret":4096,"count":4096,"offset":8192}}"#,
        );
        assert_eq!(key, FileKey::Hash("ab".into()));
        assert_eq!(
            (pread.kind, pread.offset(), pread.bytes(), pread.end),
            (OpKind::PosixRead, Some(8192), Some(4096), 13)
        );
        let (_, fread) = op(
            r#"{"id":6,"name":"fread","cat":"STDIO","pid":7,"tid":7,"ts":10,"dur":3,"ph":1,"args":{"fhash":"ab","ret":3,"count":3,"size":100}}"#,
        );
        assert_eq!((fread.kind, fread.bytes()), (OpKind::StdioRead, Some(300)));
    }

    #[test]
    fn a_read_without_offset_uses_the_position_and_a_legacy_fname_names_the_file() {
        let (key, read) = op(
            r#"{"id":"9","name":"read","cat":"POSIX","pid":"1","tid":"2","ts":"100","dur":"5","ph":"X","args":{"ret":"131072","count":"131072","fname":"/p/f","offset":"7"}}"#,
        );
        assert_eq!(key, FileKey::Path("/p/f".into()));
        assert_eq!((read.offset(), read.bytes()), (None, Some(131_072)));
    }

    #[test]
    fn a_call_without_a_file_is_unusable_and_other_categories_are_not_calls() {
        let Ok(Line::Event(event)) = decode_line(
            br#"{"id":1,"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":1,"dur":1,"ph":"X","args":{"ret":1}}"#,
        ) else {
            panic!("line")
        };
        assert_eq!(decode(&event), Err(Unusable::NoFile));
        let Ok(Line::Event(event)) = decode_line(
            br#"{"id":1,"name":"fetch","cat":"data_loader","pid":1,"tid":1,"ts":1,"dur":1,"ph":"X"}"#,
        ) else {
            panic!("line")
        };
        assert_eq!(decode(&event), Ok(None));
    }
}
