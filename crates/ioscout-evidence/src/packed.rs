//! A unit's ops packed into bytes while they wait for the replay: between the scan, where
//! [`crate::fold::EvidenceFold`] reduces each call to an [`Op`], and [`crate::fold::Replay`],
//! which takes the units in file order. Ops wait for every unit of two windows of the scan, so
//! their size is most of the evidence's memory: an [`Op`] is 72 bytes, packed it is about 20.
//!
//! # Layout
//!
//! Per op: the kind (one byte), the flags (one byte: `whence`, `positional`, `failed`, `append`,
//! which of bytes and offset are known), then LEB128 varints of the name, the file, the rename
//! target plus one (0 for none), and, zigzag-coded, the process, the start and the line position
//! as differences from the op before, the duration, the bytes and the offset. The ops of one unit
//! are packed into chunks of [`CHUNK_BYTES`] that are never reallocated (an op starts a new chunk
//! when fewer than [`MAX_OP_BYTES`] are left) and unpacked in the order they were packed.

use ioscout_read::LinePosition;

use crate::op::{Op, OpKind, Whence};

/// Bytes per chunk.
pub(crate) const CHUNK_BYTES: usize = 64 << 10;

/// The most bytes one packed op takes: kind and flags, three `u32` varints (5 bytes at most) and
/// six 64-bit varints (10 at most).
pub(crate) const MAX_OP_BYTES: usize = 2 + 3 * 5 + 6 * 10;

/// Every kind, at the index of its discriminant.
const KINDS: [OpKind; 21] = [
    OpKind::PosixOpen,
    OpKind::PosixDup,
    OpKind::PosixRead,
    OpKind::PosixWrite,
    OpKind::PosixSeek,
    OpKind::PosixStat,
    OpKind::PosixFsync,
    OpKind::PosixFdatasync,
    OpKind::PosixMmap,
    OpKind::PosixClose,
    OpKind::PosixRename,
    OpKind::PosixOther,
    OpKind::StdioOpen,
    OpKind::StdioFdopen,
    OpKind::StdioRead,
    OpKind::StdioWrite,
    OpKind::StdioFlush,
    OpKind::StdioSeek,
    OpKind::StdioTell,
    OpKind::StdioClose,
    OpKind::StdioOther,
];

const POSITIONAL: u8 = 1 << 2;
const FAILED: u8 = 1 << 3;
const APPEND: u8 = 1 << 4;
const PRESENT_SHIFT: u8 = 5;

/// What the previous op of the unit had (the base of the differences).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Previous {
    pid: i64,
    start: i64,
    line: u64,
}

fn zigzag(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

fn unzigzag(value: u64) -> i64 {
    ((value >> 1) as i64) ^ -((value & 1) as i64)
}

fn put(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn take(bytes: &mut &[u8]) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = bytes.split_first()?;
        *bytes = rest;
        value |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return Some(value);
        }
    }
    None
}

fn take_u32(bytes: &mut &[u8]) -> Option<u32> {
    u32::try_from(take(bytes)?).ok()
}

/// Appends `op` to `out`, as a difference from `previous`, which it then becomes.
pub(crate) fn pack(out: &mut Vec<u8>, op: &Op, previous: &mut Previous) {
    let whence = match op.whence {
        None => 0,
        Some(Whence::Set) => 1,
        Some(Whence::Current) => 2,
        Some(Whence::End) => 3,
    };
    let mut flags = whence | ((op.present & 3) << PRESENT_SHIFT);
    for (set, bit) in [(op.positional, POSITIONAL), (op.failed, FAILED), (op.append, APPEND)] {
        if set {
            flags |= bit;
        }
    }
    out.push(op.kind as u8);
    out.push(flags);
    put(out, u64::from(op.name));
    put(out, u64::from(op.file));
    put(out, op.target.map_or(0, |target| u64::from(target) + 1));
    let line = op.line.to_bits();
    put(out, zigzag(op.pid.wrapping_sub(previous.pid)));
    put(out, zigzag(op.start.wrapping_sub(previous.start)));
    put(out, zigzag(line.wrapping_sub(previous.line) as i64));
    put(out, zigzag(op.end.wrapping_sub(op.start)));
    put(out, zigzag(op.bytes));
    put(out, zigzag(op.offset));
    *previous = Previous { pid: op.pid, start: op.start, line };
}

/// The op at the front of `bytes` (which it then leaves), packed after `previous`, which it
/// then becomes; `None` at the end (or on bytes [`pack`] did not write).
pub(crate) fn unpack(bytes: &mut &[u8], previous: &mut Previous) -> Option<Op> {
    let (&kind, rest) = bytes.split_first()?;
    let (&flags, rest) = rest.split_first()?;
    *bytes = rest;
    let kind = *KINDS.get(usize::from(kind))?;
    let whence = match flags & 3 {
        0 => None,
        1 => Some(Whence::Set),
        2 => Some(Whence::Current),
        _ => Some(Whence::End),
    };
    let name = take_u32(bytes)?;
    let file = take_u32(bytes)?;
    let target = match take(bytes)? {
        0 => None,
        plus_one => Some(u32::try_from(plus_one - 1).ok()?),
    };
    let pid = previous.pid.wrapping_add(unzigzag(take(bytes)?));
    let start = previous.start.wrapping_add(unzigzag(take(bytes)?));
    let line = previous.line.wrapping_add(unzigzag(take(bytes)?) as u64);
    let end = start.wrapping_add(unzigzag(take(bytes)?));
    let op_bytes = unzigzag(take(bytes)?);
    let offset = unzigzag(take(bytes)?);
    *previous = Previous { pid, start, line };
    Some(Op {
        kind,
        whence,
        positional: flags & POSITIONAL != 0,
        failed: flags & FAILED != 0,
        append: flags & APPEND != 0,
        present: (flags >> PRESENT_SHIFT) & 3,
        name,
        file,
        target,
        pid,
        start,
        end,
        bytes: op_bytes,
        offset,
        line: LinePosition::from_bits(line),
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Every kind sits at the index of its discriminant, so a kind packs and unpacks as itself.
    #[test]
    fn kinds_are_at_their_discriminants() {
        for (index, kind) in KINDS.iter().enumerate() {
            assert_eq!(*kind as usize, index, "{kind:?}");
        }
        assert_eq!(OpKind::StdioOther as usize + 1, KINDS.len());
    }

    fn op_strategy() -> impl Strategy<Value = Op> {
        let small = prop_oneof![Just(0i64), -3i64..3, any::<i64>(), Just(i64::MIN), Just(i64::MAX)];
        (
            (0..KINDS.len(), 0u8..4, any::<(bool, bool, bool)>(), 0u8..4),
            (any::<u32>(), 0u32..16, prop::option::of(any::<u32>())),
            (small.clone(), 1_000_000i64..1_000_100, small.clone(), small.clone(), small),
            (any::<bool>(), prop_oneof![0u64..50, any::<u64>()]),
        )
            .prop_map(
                |(
                    (kind, whence, (positional, failed, append), present),
                    (name, file, target),
                    (pid, start, duration, bytes, offset),
                    (absolute, line),
                )| Op {
                    kind: KINDS[kind],
                    whence: [None, Some(Whence::Set), Some(Whence::Current), Some(Whence::End)]
                        [usize::from(whence)],
                    positional,
                    failed,
                    append,
                    present,
                    name,
                    file,
                    target,
                    pid,
                    start: start.wrapping_add(pid.rem_euclid(7)),
                    end: start.wrapping_add(duration),
                    bytes,
                    offset,
                    line: if absolute {
                        LinePosition::in_file(line >> 1)
                    } else {
                        LinePosition::in_unit(line >> 1)
                    },
                },
            )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        /// Ops come back as they went in, in order, each within [`MAX_OP_BYTES`], whatever their
        /// values (extremes included).
        #[test]
        fn ops_unpack_as_packed(ops in prop::collection::vec(op_strategy(), 0..40)) {
            let mut packed = Vec::new();
            let mut previous = Previous::default();
            for op in &ops {
                let before = packed.len();
                pack(&mut packed, op, &mut previous);
                prop_assert!(packed.len() - before <= MAX_OP_BYTES);
            }
            let mut bytes = packed.as_slice();
            let mut previous = Previous::default();
            let mut unpacked = Vec::new();
            while let Some(op) = unpack(&mut bytes, &mut previous) {
                unpacked.push(op);
            }
            prop_assert!(bytes.is_empty());
            prop_assert_eq!(unpacked, ops);
        }
    }

    /// A typical run of reads packs to a fraction of the in-memory size.
    #[test]
    fn reads_pack_small() {
        let mut packed = Vec::new();
        let mut previous = Previous::default();
        for index in 0..1000i64 {
            let op = Op {
                kind: OpKind::PosixRead,
                whence: None,
                positional: true,
                failed: false,
                append: false,
                present: 3,
                name: 2,
                file: 7,
                target: None,
                pid: 41_235,
                start: 1_700_000_000_000_000 + index * 130,
                end: 1_700_000_000_000_000 + index * 130 + 95,
                bytes: 262_144,
                offset: index * 262_144,
                line: LinePosition::in_unit(index as u64 * 2),
            };
            pack(&mut packed, &op, &mut previous);
        }
        assert!(packed.len() < 20 * 1000, "{} bytes", packed.len());
    }
}
