//! `transpose`: the transpose of a `rows x cols` float32 matrix.
//!
//! The input `x` is `rows x cols`, row-major, uniform in [-1, 1); the
//! output `y` is `cols x rows`, row-major: `y[c * rows + r] = x[r * cols +
//! c]`. Moving a float changes no bit of it, so the check is exact at every
//! element, at the timed sizes and at edge shapes whose sides are not
//! multiples of 32 (a tiled kernel's ragged last tiles), and one element
//! left unwritten (still NaN) or read from the wrong place fails.
//!
//! The algorithm reads every element once and writes it once: `2 * rows *
//! cols * 4` bytes, compared with the copy ceiling.

use super::draw::{Distribution, generator_named};
use super::{
    BufferRole, BufferSpec, CheckOutcome, Data, Elem, HostData, Instance, OutputInit, Prepared,
    Problem, Shape, output,
};
use crate::dims::{Dim, Dims};

/// The dimensions: rows and columns of the input.
const DIMS: &[Dim] = &[Dim::count("rows"), Dim::count("cols")];

/// See the module documentation.
pub struct Transpose;

impl Problem for Transpose {
    fn name(&self) -> &'static str {
        "transpose"
    }

    fn version(&self) -> u32 {
        1
    }

    fn summary(&self) -> &'static str {
        "y (cols x rows) = the transpose of x (rows x cols), both row-major float32"
    }

    fn dims(&self) -> &'static [Dim] {
        DIMS
    }

    fn buffers(&self, instance: &Instance) -> Vec<BufferSpec> {
        let elements = instance.shape.dim("rows") * instance.shape.dim("cols");
        vec![
            BufferSpec {
                name: "x",
                elem: Elem::F32,
                len: elements,
                role: BufferRole::Input,
            },
            BufferSpec {
                name: "y",
                elem: Elem::F32,
                len: elements,
                role: BufferRole::Output(OutputInit::Poison),
            },
        ]
    }

    fn prepare(&self, instance: &Instance, seed: u64, _data: Data) -> Prepared {
        let n = instance.shape.dim("rows") * instance.shape.dim("cols");
        let x = Distribution::Uniform { lo: -1.0, hi: 1.0 }.draw(
            &generator_named(seed, "x", n),
            Elem::F32,
            n,
        );
        Prepared {
            inputs: vec![("x".to_string(), x)],
            reference: Vec::new(),
        }
    }

    fn check(
        &self,
        instance: &Instance,
        prepared: &Prepared,
        outputs: &[(&str, &HostData)],
        _data: Data,
    ) -> CheckOutcome {
        let (rows, cols) = (instance.shape.dim("rows"), instance.shape.dim("cols"));
        let (Some(x), Some(y)) = (
            prepared.input("x").and_then(HostData::as_f32),
            output(outputs, "y").and_then(HostData::as_f32),
        ) else {
            return super::rowwise::missing();
        };
        check_transpose(x, y, rows as usize, cols as usize)
    }

    fn bytes(&self, instance: &Instance) -> u64 {
        2 * 4 * instance.shape.dim("rows") * instance.shape.dim("cols")
    }

    fn work(&self, instance: &Instance) -> Vec<(&'static str, f64)> {
        vec![(
            "elements",
            (instance.shape.dim("rows") * instance.shape.dim("cols")) as f64,
        )]
    }

    fn bound(&self) -> super::Bound {
        super::Bound::Copy
    }

    fn edge_shapes(&self) -> Vec<Shape> {
        // One element, one row, one column, sides just off a tile of 32,
        // and a tall and a wide matrix whose last tiles are ragged.
        [
            (1, 1),
            (1, 1000),
            (1000, 1),
            (31, 33),
            (33, 31),
            (100, 4099),
            (4099, 70),
        ]
        .into_iter()
        .map(|(r, c)| Shape::of(Dims::new(DIMS, &[r, c]).expect("two values")))
        .collect()
    }
}

/// Every element of `y` against the element of `x` it must hold, bit for
/// bit; the detail names the first one wrong.
fn check_transpose(x: &[f32], y: &[f32], rows: usize, cols: usize) -> CheckOutcome {
    let mut wrong = 0u64;
    let mut first = None;
    for c in 0..cols {
        for r in 0..rows {
            let (want, got) = (x[r * cols + c], y[c * rows + r]);
            if want.to_bits() != got.to_bits() {
                wrong += 1;
                first.get_or_insert((r, c, want, got));
            }
        }
    }
    let detail = match first {
        None => format!(
            "all {} elements of y are those of x transposed",
            rows * cols
        ),
        Some((r, c, want, got)) => format!(
            "{wrong} of {} elements wrong; first y[{c} * rows + {r}] (row {c}, column {r} of y): expected x[{r} * cols + {c}] = {want}, got {got}",
            rows * cols
        ),
    };
    CheckOutcome {
        error: wrong as f64 / (rows * cols).max(1) as f64,
        tolerance: 0.0,
        pass: wrong == 0,
        detail,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instance(rows: u64, cols: u64) -> Instance {
        Instance {
            shape: Shape::of(Dims::new(DIMS, &[rows, cols]).unwrap()),
            dtype: Elem::F32,
        }
    }

    fn transposed(x: &[f32], rows: usize, cols: usize) -> Vec<f32> {
        let mut y = vec![f32::NAN; x.len()];
        for r in 0..rows {
            for c in 0..cols {
                y[c * rows + r] = x[r * cols + c];
            }
        }
        y
    }

    // The right answer passes at every edge shape; a copy (no transpose),
    // one element left unwritten and the last ragged tile skipped fail.
    #[test]
    fn the_check_catches_copies_holes_and_ragged_tiles() {
        let p = Transpose;
        for shape in p.edge_shapes() {
            let i = Instance {
                shape,
                dtype: Elem::F32,
            };
            let (rows, cols) = (shape.dim("rows") as usize, shape.dim("cols") as usize);
            let prepared = p.prepare(&i, 7, Data::Exact);
            let x = prepared.input("x").unwrap().as_f32().unwrap().to_vec();
            let right = HostData::F32(transposed(&x, rows, cols));
            assert!(p.check(&i, &prepared, &[("y", &right)], Data::Exact).pass);
            if rows > 1 && cols > 1 {
                let copy = HostData::F32(x.clone());
                let out = p.check(&i, &prepared, &[("y", &copy)], Data::Exact);
                assert!(!out.pass, "{rows}x{cols}: a copy is not a transpose");
            }
            let mut hole = transposed(&x, rows, cols);
            *hole.last_mut().unwrap() = f32::NAN;
            let out = p.check(&i, &prepared, &[("y", &HostData::F32(hole))], Data::Exact);
            assert!(
                !out.pass && out.detail.contains("got NaN"),
                "{}",
                out.detail
            );
        }
        // A kernel that skips the last partial tile of 32 columns of x.
        let i = instance(100, 4099);
        let prepared = p.prepare(&i, 7, Data::Timed);
        let x = prepared.input("x").unwrap().as_f32().unwrap().to_vec();
        let mut y = transposed(&x, 100, 4099);
        y[4096 * 100..].fill(f32::NAN);
        let out = p.check(&i, &prepared, &[("y", &HostData::F32(y))], Data::Timed);
        assert!(!out.pass);
        assert!(
            out.detail
                .starts_with("300 of 409900 elements wrong; first y[4096 * rows + 0]"),
            "{}",
            out.detail
        );
    }

    // Sizes read as rows x cols; bytes are a read and a write of each.
    #[test]
    fn dims_and_bytes() {
        let i = instance(8192, 4096);
        assert_eq!(Transpose.bytes(&i), 2 * 4 * 8192 * 4096);
        assert_eq!(
            Dims::parse("rows = 8192, cols = 4096", Transpose.dims()).unwrap(),
            i.shape.dims.unwrap()
        );
        assert_eq!(i.shape.dims.unwrap().to_string(), "8192x4096");
    }
}
