//! How long a problem's prepare and check take on this machine's CPU, for
//! one shape: `cargo run --release -p cuda-measured-core --example
//! check_cost -- softmax_rows 16384 1024`.

use cuda_measured_core::problem::{self, Data, Elem, HostData, Instance, Shape};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let name = args.get(1).map_or("softmax_rows", String::as_str);
    let rows: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(16384);
    let cols: u64 = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(1024);
    let p = problem::lookup(name).expect("a registered problem");
    let i = Instance {
        shape: Shape::rows(rows, cols),
        dtype: Elem::F32,
    };
    let t = Instant::now();
    let prepared = p.prepare(&i, 1, Data::Timed);
    println!("prepare {:?}", t.elapsed());
    // An answer of the right size (wrong values: the check still reads all).
    let outputs: Vec<(&str, HostData)> = p
        .buffers(&i)
        .iter()
        .filter(|b| !matches!(b.role, problem::BufferRole::Input))
        .map(|b| (b.name, HostData::zeroed(b.elem, b.len as usize)))
        .collect();
    let refs: Vec<(&str, &HostData)> = outputs.iter().map(|(n, d)| (*n, d)).collect();
    let t = Instant::now();
    let c = p.check(&i, &prepared, &refs, Data::Timed);
    println!("check {:?} (pass {})", t.elapsed(), c.pass);
    if let Some(HostData::F32(x)) = prepared.input("x") {
        let t = Instant::now();
        let s = raw(x);
        println!("one thread, exp of every element {:?} ({s})", t.elapsed());
    }
}

fn raw(x: &[f32]) -> f64 {
    x.iter().map(|&v| (f64::from(v) - 75.0).exp()).sum()
}
