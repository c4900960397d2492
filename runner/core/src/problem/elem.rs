//! Element types of problem buffers, and host data of any of them.

use half::{bf16, f16};

/// The type of one buffer element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Elem {
    /// `float`.
    F32,
    /// `__half` (IEEE binary16).
    F16,
    /// `__nv_bfloat16` (8 exponent bits, 8 significant bits).
    BF16,
    /// `int`.
    I32,
    /// `unsigned char` (a byte).
    U8,
    /// `unsigned int`.
    U32,
    /// `double`.
    F64,
}

impl Elem {
    /// Every element type, in the order messages list them.
    pub const ALL: [Elem; 7] = [
        Elem::F32,
        Elem::F16,
        Elem::BF16,
        Elem::I32,
        Elem::U8,
        Elem::U32,
        Elem::F64,
    ];

    /// The name headers use (`dtype = "bf16"`).
    pub fn name(self) -> &'static str {
        match self {
            Elem::F32 => "f32",
            Elem::F16 => "f16",
            Elem::BF16 => "bf16",
            Elem::I32 => "i32",
            Elem::U8 => "u8",
            Elem::U32 => "u32",
            Elem::F64 => "f64",
        }
    }

    /// The element type called `name`.
    pub fn parse(name: &str) -> Option<Elem> {
        Elem::ALL.into_iter().find(|e| e.name() == name)
    }

    /// The CUDA C++ type a kernel takes it as.
    pub fn c_type(self) -> &'static str {
        match self {
            Elem::F32 => "float",
            Elem::F16 => "__half",
            Elem::BF16 => "__nv_bfloat16",
            Elem::I32 => "int",
            Elem::U8 => "unsigned char",
            Elem::U32 => "unsigned int",
            Elem::F64 => "double",
        }
    }

    /// The C++ type a kernel declares a pointer to it with under the
    /// pinned NVRTC, which has no `cuda_bf16.h` or `cuda_fp16.h`: `unsigned
    /// short` for the 16-bit floats, else [`Elem::c_type`].
    pub fn pointer_type(self) -> &'static str {
        match self {
            Elem::F16 | Elem::BF16 => "unsigned short",
            other => other.c_type(),
        }
    }

    /// Bytes of one element.
    pub fn bytes(self) -> u64 {
        match self {
            Elem::F64 => 8,
            Elem::F32 | Elem::I32 | Elem::U32 => 4,
            Elem::F16 | Elem::BF16 => 2,
            Elem::U8 => 1,
        }
    }

    /// The unit roundoff of the type (half the distance from 1 to the next
    /// value): 2^-24 for f32, 2^-11 for f16, 2^-8 for bf16; 0 for integers,
    /// which are exact.
    pub fn unit_roundoff(self) -> f64 {
        match self {
            Elem::F32 => 2f64.powi(-24),
            Elem::F16 => 2f64.powi(-11),
            Elem::BF16 => 2f64.powi(-8),
            Elem::F64 => 2f64.powi(-53),
            Elem::I32 | Elem::U8 | Elem::U32 => 0.0,
        }
    }

    /// Whether it is an integer type (checked exactly).
    pub fn is_integer(self) -> bool {
        matches!(self, Elem::I32 | Elem::U8 | Elem::U32)
    }

    /// The bit pattern of `v` in this type, in the low bits.
    pub fn bits_of(self, v: f64) -> u64 {
        match self {
            Elem::F32 => u64::from((v as f32).to_bits()),
            Elem::F16 => u64::from(f16::from_f64(v).to_bits()),
            Elem::BF16 => u64::from(bf16::from_f64(v).to_bits()),
            Elem::I32 => u64::from((v as i32) as u32),
            Elem::U8 => u64::from(v as u8),
            Elem::U32 => u64::from(v as u32),
            Elem::F64 => v.to_bits(),
        }
    }

    /// The bit pattern an output starts with in a checked run, so that an
    /// element the kernel never writes fails: a quiet NaN for the float
    /// types (for `double` 0x7ff80000 in both halves, a NaN too, so that a
    /// 32-bit fill writes it), and for the integers a large value no check
    /// expects: 0x7fc00000 for `int` and `unsigned int`, 0xff for a byte.
    pub fn poison_bits(self) -> u64 {
        match self {
            Elem::F32 | Elem::I32 | Elem::U32 => 0x7fc0_0000,
            Elem::F16 => 0x7e00,
            Elem::BF16 => 0x7fc0,
            Elem::U8 => 0xff,
            Elem::F64 => 0x7ff8_0000_7ff8_0000,
        }
    }
}

impl std::fmt::Display for Elem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The contents of one buffer on the host.
#[derive(Debug, Clone, PartialEq)]
pub enum HostData {
    /// `float` elements.
    F32(Vec<f32>),
    /// `__half` elements.
    F16(Vec<f16>),
    /// `__nv_bfloat16` elements.
    BF16(Vec<bf16>),
    /// `int` elements.
    I32(Vec<i32>),
    /// `unsigned char` elements.
    U8(Vec<u8>),
    /// `unsigned int` elements.
    U32(Vec<u32>),
    /// `double` elements.
    F64(Vec<f64>),
}

impl HostData {
    /// `values` stored as `elem`, rounded to nearest where it is narrower.
    pub fn from_f32(elem: Elem, values: Vec<f32>) -> HostData {
        match elem {
            Elem::F32 => HostData::F32(values),
            Elem::F16 => HostData::F16(values.iter().map(|&v| f16::from_f32(v)).collect()),
            Elem::BF16 => HostData::BF16(values.iter().map(|&v| bf16::from_f32(v)).collect()),
            Elem::I32 => HostData::I32(values.iter().map(|&v| v as i32).collect()),
            Elem::U8 => HostData::U8(values.iter().map(|&v| v as u8).collect()),
            Elem::U32 => HostData::U32(values.iter().map(|&v| v as u32).collect()),
            Elem::F64 => HostData::F64(values.iter().map(|&v| f64::from(v)).collect()),
        }
    }

    /// `len` zero elements of type `elem`, to be filled in place (from a
    /// file or the device) without a second copy.
    pub fn zeroed(elem: Elem, len: usize) -> HostData {
        match elem {
            Elem::F32 => HostData::F32(vec![0.0; len]),
            Elem::F16 => HostData::F16(vec![f16::ZERO; len]),
            Elem::BF16 => HostData::BF16(vec![bf16::ZERO; len]),
            Elem::I32 => HostData::I32(vec![0; len]),
            Elem::U8 => HostData::U8(vec![0; len]),
            Elem::U32 => HostData::U32(vec![0; len]),
            Elem::F64 => HostData::F64(vec![0.0; len]),
        }
    }

    /// The raw bytes, writable.
    pub fn as_bytes_mut(&mut self) -> &mut [u8] {
        match self {
            HostData::F32(v) => bytemuck::cast_slice_mut(v),
            HostData::F16(v) => bytemuck::cast_slice_mut(v),
            HostData::BF16(v) => bytemuck::cast_slice_mut(v),
            HostData::I32(v) => bytemuck::cast_slice_mut(v),
            HostData::U8(v) => v,
            HostData::U32(v) => bytemuck::cast_slice_mut(v),
            HostData::F64(v) => bytemuck::cast_slice_mut(v),
        }
    }

    /// Its element type.
    pub fn elem(&self) -> Elem {
        match self {
            HostData::F32(_) => Elem::F32,
            HostData::F16(_) => Elem::F16,
            HostData::BF16(_) => Elem::BF16,
            HostData::I32(_) => Elem::I32,
            HostData::U8(_) => Elem::U8,
            HostData::U32(_) => Elem::U32,
            HostData::F64(_) => Elem::F64,
        }
    }

    /// Elements.
    pub fn len(&self) -> usize {
        match self {
            HostData::F32(v) => v.len(),
            HostData::F16(v) => v.len(),
            HostData::BF16(v) => v.len(),
            HostData::I32(v) => v.len(),
            HostData::U8(v) => v.len(),
            HostData::U32(v) => v.len(),
            HostData::F64(v) => v.len(),
        }
    }

    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i` as a float64 (exact for every type here).
    pub fn get(&self, i: usize) -> f64 {
        match self {
            HostData::F32(v) => f64::from(v[i]),
            HostData::F16(v) => v[i].to_f64(),
            HostData::BF16(v) => v[i].to_f64(),
            HostData::I32(v) => f64::from(v[i]),
            HostData::U8(v) => f64::from(v[i]),
            HostData::U32(v) => f64::from(v[i]),
            HostData::F64(v) => v[i],
        }
    }

    /// The raw bytes, as the device holds them.
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            HostData::F32(v) => bytemuck::cast_slice(v),
            HostData::F16(v) => bytemuck::cast_slice(v),
            HostData::BF16(v) => bytemuck::cast_slice(v),
            HostData::I32(v) => bytemuck::cast_slice(v),
            HostData::U8(v) => v,
            HostData::U32(v) => bytemuck::cast_slice(v),
            HostData::F64(v) => bytemuck::cast_slice(v),
        }
    }

    /// Data of type `elem` from raw bytes (a whole number of elements).
    pub fn from_bytes(elem: Elem, bytes: &[u8]) -> HostData {
        match elem {
            Elem::F32 => HostData::F32(bytemuck::pod_collect_to_vec(bytes)),
            Elem::F16 => HostData::F16(bytemuck::pod_collect_to_vec(bytes)),
            Elem::BF16 => HostData::BF16(bytemuck::pod_collect_to_vec(bytes)),
            Elem::I32 => HostData::I32(bytemuck::pod_collect_to_vec(bytes)),
            Elem::U8 => HostData::U8(bytes.to_vec()),
            Elem::U32 => HostData::U32(bytemuck::pod_collect_to_vec(bytes)),
            Elem::F64 => HostData::F64(bytemuck::pod_collect_to_vec(bytes)),
        }
    }

    /// The `float` elements, when it holds floats.
    pub fn as_f32(&self) -> Option<&[f32]> {
        match self {
            HostData::F32(v) => Some(v),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Bytes round-trip for every type, and narrow types round to nearest.
    #[test]
    fn bytes_round_trip_and_narrow_types_round() {
        for elem in Elem::ALL {
            let d = HostData::from_f32(elem, vec![1.0, -2.5, 3.0]);
            assert_eq!(d.as_bytes().len() as u64, 3 * elem.bytes());
            assert_eq!(HostData::from_bytes(elem, d.as_bytes()), d);
            let mut z = HostData::zeroed(elem, 3);
            z.as_bytes_mut().copy_from_slice(d.as_bytes());
            assert_eq!(z, d);
            assert_eq!(Elem::parse(elem.name()), Some(elem));
        }
        let b = HostData::from_f32(Elem::BF16, vec![1.0 + 1.0 / 512.0]);
        assert_eq!(b.get(0), 1.0, "1 + 2^-9 rounds to 1 in bf16");
    }

    // Poison is NaN for the float types, and a 32-bit fill writes the
    // double's.
    #[test]
    fn poison_is_nan_for_floats() {
        assert!(f64::from_bits(Elem::F64.poison_bits()).is_nan());
        let halves = Elem::F64.poison_bits();
        assert_eq!(halves >> 32, halves & 0xffff_ffff);
        assert!(f32::from_bits(Elem::F32.poison_bits() as u32).is_nan());
        assert!(f16::from_bits(Elem::F16.poison_bits() as u16).is_nan());
        assert!(bf16::from_bits(Elem::BF16.poison_bits() as u16).is_nan());
    }
}
