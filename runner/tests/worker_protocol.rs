//! The warm worker's protocol with the real `cuda-runner worker`: the
//! parent's side (core's `workers`) sends a job line, the worker answers
//! with its result file and the sentinel. Without a GPU (CI, this test's
//! machine) the worker's first job ends as a fault saying there is no
//! usable GPU, and the worker leaves, so the next job starts a fresh one;
//! on a GPU machine the job measures (the test then checks it passed).

use cuda_measured_core::example::Example;
use cuda_measured_core::isolate::ChildEnv;
use cuda_measured_core::record::Status;
use cuda_measured_core::workers::Workers;
use std::path::Path;
use std::time::Duration;

const BODY: &str = "/*+++\nproblem = \"sum_f32\"\nsizes = [\"2^20\"]\n[[launch]]\nkernel = \"k\"\ngrid = 1\nblock = 32\nargs = [\"input\", \"out\", \"n\"]\n+++*/\nextern \"C\" __global__ void k(const float* x, float* out, unsigned n) {}\n";

#[derive(serde::Serialize)]
struct Job<'a> {
    example: &'a Example,
    key: &'a str,
    process: usize,
    processes: usize,
}

// Two jobs through the real worker end as records (never a hang or an
// unreadable result): a fault naming the missing GPU where there is none.
#[test]
fn the_real_worker_answers_each_job_with_a_record() {
    let dir = tempfile::tempdir().unwrap();
    let example =
        Example::from_inline(dir.path(), "src/ch.md", dir.path(), BODY, 1, "demo").unwrap();
    let runner = Path::new(env!("CARGO_BIN_EXE_cuda-runner"));
    let mut workers = Workers::new(runner, &ChildEnv::default());
    for process in [0, 0] {
        let job = Job {
            example: &example,
            key: "k",
            process,
            processes: 1,
        };
        let measured = workers
            .run(process, &job, Duration::from_secs(120))
            .unwrap_or_else(|e| panic!("the worker gave no record: {e}"));
        let record = measured.record;
        assert_eq!(record.example, "demo");
        if record.gpu.is_none() {
            assert_eq!(record.status, Status::Fault, "{}", record.message);
            assert!(
                record.message.starts_with("no usable GPU"),
                "{}",
                record.message
            );
        } else {
            // The empty kernel leaves `out` as poisoned: a wrong answer.
            assert!(
                matches!(record.status, Status::Wrong | Status::Pass),
                "{record:?}"
            );
        }
    }
}
