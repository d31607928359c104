//! A small bloom filter with a stable hash, so an index written by one run answers the next.
//!
//! # Overview
//!
//! [`Bloom`] holds `bits` as 64-bit words and derives its probes from one 64-bit FNV-1a hash of
//! the value, mixed and split into two halves (double hashing). The hash is defined here, not
//! taken from the standard library, because `std`'s hasher may change between Rust versions and
//! an index outlives the binary that wrote it. A bloom filter answers "maybe" or "certainly not":
//! the index uses it only to skip chunks.

use serde::{Deserialize, Serialize};

/// A bloom filter over byte strings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bloom {
    words: Vec<u64>,
    probes: u32,
}

/// FNV-1a 64, then the `splitmix64` finaliser: stable across platforms and versions.
pub fn stable_hash(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash = (hash ^ (hash >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    hash = (hash ^ (hash >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    hash ^ (hash >> 31)
}

impl Bloom {
    /// A filter sized for `items` values at about 1 % false positives (10 bits and 7 probes per
    /// value), at least 64 bits.
    pub fn with_capacity(items: usize) -> Bloom {
        let bits = (items.max(1) * 10).next_power_of_two().max(64);
        Bloom { words: vec![0; bits / 64], probes: 7 }
    }

    /// A filter holding exactly `values`.
    pub fn from_values<'a>(values: impl ExactSizeIterator<Item = &'a [u8]>) -> Bloom {
        let mut bloom = Bloom::with_capacity(values.len());
        for value in values {
            bloom.insert(value);
        }
        bloom
    }

    fn positions(&self, value: &[u8]) -> impl Iterator<Item = usize> + use<> {
        let hash = stable_hash(value);
        let first = hash & 0xffff_ffff;
        let second = (hash >> 32) | 1;
        let bits = (self.words.len() * 64) as u64;
        (0..u64::from(self.probes))
            .map(move |probe| (first.wrapping_add(probe.wrapping_mul(second)) % bits.max(1)) as usize)
    }

    /// Adds a value.
    pub fn insert(&mut self, value: &[u8]) {
        let positions: Vec<usize> = self.positions(value).collect();
        for position in positions {
            if let Some(word) = self.words.get_mut(position / 64) {
                *word |= 1 << (position % 64);
            }
        }
    }

    /// `false` only if `value` was certainly never inserted.
    pub fn might_contain(&self, value: &[u8]) -> bool {
        self.positions(value).all(|position| {
            self.words.get(position / 64).is_some_and(|word| word & (1 << (position % 64)) != 0)
        })
    }

    /// Size in bytes.
    pub fn size(&self) -> usize {
        self.words.len() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const STABLE_NODE007: &str = "053c9354e050841f";

    #[test]
    fn the_hash_is_stable() {
        // Fixed values: an index written today must be readable by every later build, so the
        // hash of a value may never change.
        assert_eq!(format!("{:016x}", stable_hash(b"node007")), STABLE_NODE007);
        assert_ne!(stable_hash(b"node007"), stable_hash(b"node008"));
    }

    proptest! {
        #[test]
        fn inserted_values_are_always_found(values in proptest::collection::vec(".{0,12}", 1..200)) {
            let bloom = Bloom::from_values(values.iter().map(String::as_bytes));
            for value in &values {
                prop_assert!(bloom.might_contain(value.as_bytes()));
            }
        }
    }

    #[test]
    fn false_positives_are_rare() {
        let values: Vec<String> = (0..1000).map(|index| format!("file-{index}")).collect();
        let bloom = Bloom::from_values(values.iter().map(String::as_bytes));
        let false_positives =
            (0..10_000).filter(|index| bloom.might_contain(format!("other-{index}").as_bytes())).count();
        assert!(false_positives < 300, "{false_positives} false positives in 10000");
    }
}
