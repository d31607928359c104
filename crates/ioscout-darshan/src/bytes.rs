//! A bounds-checked little cursor over decompressed bytes that reads integers and floats in the
//! log writer's byte order (Darshan writes native order and records it through the magic number).

/// Reads fixed-size values from a byte slice, in the log's byte order.
pub(crate) struct Cursor<'a> {
    bytes: &'a [u8],
    position: usize,
    swapped: bool,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `bytes`; `swapped` when the log was written big-endian (the
    /// magic number read back byte-swapped on this little-endian reader).
    pub(crate) fn new(bytes: &'a [u8], swapped: bool) -> Self {
        Cursor { bytes, position: 0, swapped }
    }

    /// Bytes left.
    pub(crate) fn remaining(&self) -> usize {
        self.bytes.len() - self.position
    }

    /// Position from the start.
    pub(crate) fn position(&self) -> usize {
        self.position
    }

    /// The next `length` bytes, or `None` when fewer are left.
    pub(crate) fn take(&mut self, length: usize) -> Option<&'a [u8]> {
        let end = self.position.checked_add(length)?;
        let slice = self.bytes.get(self.position..end)?;
        self.position = end;
        Some(slice)
    }

    /// Skips `length` bytes.
    pub(crate) fn skip(&mut self, length: usize) -> Option<()> {
        self.take(length).map(|_| ())
    }

    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        let slice = self.take(N)?;
        let mut array = [0_u8; N];
        array.copy_from_slice(slice);
        Some(array)
    }

    /// An unsigned 64-bit integer.
    pub(crate) fn u64(&mut self) -> Option<u64> {
        let array = self.array::<8>()?;
        Some(if self.swapped { u64::from_be_bytes(array) } else { u64::from_le_bytes(array) })
    }

    /// A signed 64-bit integer.
    pub(crate) fn i64(&mut self) -> Option<i64> {
        self.u64().map(|value| value as i64)
    }

    /// An unsigned 32-bit integer.
    pub(crate) fn u32(&mut self) -> Option<u32> {
        let array = self.array::<4>()?;
        Some(if self.swapped { u32::from_be_bytes(array) } else { u32::from_le_bytes(array) })
    }

    /// A double.
    pub(crate) fn f64(&mut self) -> Option<f64> {
        self.u64().map(f64::from_bits)
    }

    /// A NUL-terminated string (the NUL is consumed; `None` when there is none).
    pub(crate) fn c_string(&mut self) -> Option<String> {
        let rest = self.bytes.get(self.position..)?;
        let length = rest.iter().position(|&byte| byte == 0)?;
        let text = String::from_utf8_lossy(&rest[..length]).into_owned();
        self.position += length + 1;
        Some(text)
    }
}

/// The text of a fixed-size, NUL-padded character field.
pub(crate) fn fixed_string(bytes: &[u8]) -> String {
    let length = bytes.iter().position(|&byte| byte == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..length]).into_owned()
}
