//! Measuring on several GPUs side by side: one lane per GPU, each taking
//! the next example no lane has taken. A lane whose GPU stops answering
//! (an example ends in a fault, a launch error or a time-out, and the GPU
//! no longer answers a fresh probe as it did) hands its example back and
//! stops, so one lost GPU costs one example's time, not a queue of failure
//! records; the example is measured again on a lane that still answers.

use super::{Bench, Done, Event, Job, conclude, tell_measuring};
use crate::record::{Record, Status};
use crate::store::Store;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// What a lane's thread tells the session's thread.
enum LaneNews {
    Measuring {
        index: usize,
        lane: usize,
    },
    Measured {
        index: usize,
        record: Box<Record>,
    },
    /// The lane's GPU stopped answering after measuring job `index`, which
    /// ended with `record`; the job was handed back.
    Lost {
        index: usize,
        lane: usize,
        record: Box<Record>,
    },
}

/// Whether a record's failure may be the GPU's rather than the example's:
/// only then does a lane ask its GPU again. A wrong answer or a compile
/// error never is.
fn may_be_the_gpu(status: Status) -> bool {
    matches!(
        status,
        Status::Fault | Status::LaunchError | Status::Timeout
    )
}

/// The jobs not yet taken: first those handed back by a lost lane, then
/// the next in order.
struct Queue {
    next: AtomicUsize,
    handed_back: Mutex<Vec<usize>>,
    len: usize,
}

impl Queue {
    fn take(&self) -> Option<usize> {
        let back = self
            .handed_back
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop();
        back.or_else(|| {
            let i = self.next.fetch_add(1, Ordering::SeqCst);
            (i < self.len).then_some(i)
        })
    }

    fn hand_back(&self, index: usize) {
        self.handed_back
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(index);
    }
}

/// [`crate::session::run`] on several GPUs: records are stored and events
/// told on this thread, in the order they happen. Returns the jobs' results
/// in order. A job handed back after every other lane stopped taking work
/// is measured here, after the lanes, on the first lane that was still
/// answering when it stopped (not asked again: if that GPU is gone too,
/// the few jobs left end in failure records, one example's time each).
/// With no lane left, a job ends with the record its lost lane wrote, or
/// one saying no lane was left; neither is stored: the GPU failed, not
/// the example, so the store keeps what it had and the next build
/// measures the example again.
pub(crate) fn side_by_side(
    jobs: &[Job<'_>],
    lanes: Vec<Box<dyn Bench + Send>>,
    store: Option<&Store>,
    on_event: &mut dyn FnMut(Event<'_>),
    started: Instant,
) -> Vec<Done> {
    let queue = Queue {
        next: AtomicUsize::new(0),
        handed_back: Mutex::new(Vec::new()),
        len: jobs.len(),
    };
    let mut done: Vec<Option<Done>> = jobs.iter().map(|_| None).collect();
    let mut lost_records: Vec<Option<Record>> = jobs.iter().map(|_| None).collect();
    let mut answering: Vec<(usize, Box<dyn Bench + Send>)> = std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::channel();
        let handles: Vec<_> = lanes
            .into_iter()
            .enumerate()
            .map(|(lane, mut bench)| {
                let (tx, queue) = (tx.clone(), &queue);
                scope.spawn(move || {
                    while let Some(index) = queue.take() {
                        // A send fails only when the session's thread has
                        // stopped listening (it panicked): measure no more.
                        if tx.send(LaneNews::Measuring { index, lane }).is_err() {
                            return None;
                        }
                        let job = &jobs[index];
                        let record = bench.measure(job.example, job.key, job.limit);
                        if may_be_the_gpu(record.status) && !bench.still_answers() {
                            // Told before it is handed back, so that the
                            // loss is told before another lane's start.
                            let record = Box::new(record);
                            let _ = tx.send(LaneNews::Lost {
                                index,
                                lane,
                                record,
                            });
                            queue.hand_back(index);
                            return None;
                        }
                        let news = LaneNews::Measured {
                            index,
                            record: Box::new(record),
                        };
                        if tx.send(news).is_err() {
                            return None;
                        }
                    }
                    Some((lane, bench))
                })
            })
            .collect();
        drop(tx);
        for news in rx {
            match news {
                LaneNews::Measuring { index, lane } => {
                    tell_measuring(index, jobs, started, Some(lane), on_event)
                }
                LaneNews::Measured { index, record } => {
                    done[index] = Some(conclude(index, &jobs[index], *record, store, on_event));
                }
                LaneNews::Lost {
                    index,
                    lane,
                    record,
                } => {
                    on_event(Event::LaneLost {
                        lane,
                        example: jobs[index].example,
                        record: &record,
                        elapsed: started.elapsed(),
                    });
                    lost_records[index] = Some(*record);
                }
            }
        }
        handles
            .into_iter()
            .filter_map(|h| h.join().ok().flatten())
            .collect()
    });
    for (index, job) in jobs.iter().enumerate() {
        if done[index].is_some() {
            continue;
        }
        let concluded = match answering.first_mut() {
            Some((lane, bench)) => {
                tell_measuring(index, jobs, started, Some(*lane), on_event);
                let record = bench.measure(job.example, job.key, job.limit);
                conclude(index, job, record, store, on_event)
            }
            None => {
                let record = lost_records[index].take().unwrap_or_else(|| {
                    Record::failure(
                        job.example,
                        job.key,
                        Status::Fault,
                        "not measured: no GPU lane was left (each stopped, its GPU no longer answering or its thread failed)",
                        "",
                    )
                });
                conclude(index, job, record, None, on_event)
            }
        };
        done[index] = Some(concluded);
    }
    done.into_iter()
        .map(|d| d.expect("every job ends with a record"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::example::Example;
    use crate::record::GpuFacts;
    use crate::session::{run, stand_in};
    use std::sync::{Arc, Barrier};
    use std::time::Duration;

    /// A stand-in GPU lane. Its first measurement waits until every lane
    /// has started one (so each lane surely takes work); with `dies` that
    /// first measurement ends in a fault and the GPU then no longer
    /// answers; `faults` names an example that faults on a GPU that keeps
    /// answering.
    struct Lane {
        id: usize,
        all_started: Arc<Barrier>,
        first: bool,
        dies: bool,
        faults: Option<&'static str>,
        answering: bool,
    }

    impl Bench for Lane {
        fn probe(&mut self) -> Option<GpuFacts> {
            None
        }
        fn measure(&mut self, example: &Example, key: &str, _: Duration) -> Record {
            if self.first {
                self.first = false;
                self.all_started.wait();
                if self.dies {
                    self.answering = false;
                    let message = format!("lane {}: device unavailable", self.id);
                    return Record::failure(example, key, Status::Fault, message, "");
                }
            }
            let status = if self.faults == Some(example.id.as_str()) {
                Status::Fault
            } else {
                Status::Pass
            };
            Record::failure(example, key, status, format!("lane {}", self.id), "")
        }
        fn describe(&self) -> String {
            format!("lane {}", self.id)
        }
        fn still_answers(&mut self) -> bool {
            self.answering
        }
    }

    /// A machine of stand-in lanes, made by `lanes`.
    struct Machine(Option<Vec<Lane>>);

    impl Bench for Machine {
        fn probe(&mut self) -> Option<GpuFacts> {
            Some(stand_in::gpu())
        }
        fn measure(&mut self, _: &Example, _: &str, _: Duration) -> Record {
            panic!("a machine of several GPUs measures on its lanes")
        }
        fn describe(&self) -> String {
            "stand-in lanes".into()
        }
        fn lanes(&mut self) -> Vec<Box<dyn Bench + Send>> {
            self.0
                .take()
                .unwrap()
                .into_iter()
                .map(|l| Box::new(l) as Box<dyn Bench + Send>)
                .collect()
        }
    }

    fn lanes(dies: &[bool], faults: Option<&'static str>) -> Machine {
        let all_started = Arc::new(Barrier::new(dies.len()));
        Machine(Some(
            dies.iter()
                .enumerate()
                .map(|(id, &dies)| Lane {
                    id,
                    all_started: all_started.clone(),
                    first: true,
                    dies,
                    faults,
                    answering: true,
                })
                .collect(),
        ))
    }

    /// Runs `machine` over `ex`, storing under `dir`; returns the results,
    /// the (lane, example) of every lost-lane event and every event told,
    /// in order, as "measuring EXAMPLE" or "lost EXAMPLE".
    fn measure(
        machine: &mut Machine,
        ex: &[Example],
        store: &Store,
    ) -> (Vec<Done>, Vec<(usize, String)>, Vec<String>) {
        let jobs = stand_in::jobs(ex, "k");
        let mut lost = Vec::new();
        let mut told = Vec::new();
        let done = run(&jobs, machine, Some(store), &mut |e| match e {
            Event::LaneLost { lane, example, .. } => {
                lost.push((lane, example.id.clone()));
                told.push(format!("lost {}", example.id));
            }
            Event::Measuring { example, .. } => told.push(format!("measuring {}", example.id)),
            _ => {}
        })
        .unwrap();
        (done, lost, told)
    }

    // A lane whose GPU stops answering hands its example back, says so, and
    // takes no more: every example, that one included, ends measured by a
    // lane that still answers, and only passing records are stored.
    #[test]
    fn a_lost_gpu_hands_its_example_to_a_lane_that_answers() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(
            dir.path().join("results"),
            crate::limits::KnownGpu::target().name,
        );
        let ex = stand_in::numbered(dir.path(), 6);
        let (done, lost, told) = measure(&mut lanes(&[true, false], None), &ex, &store);
        assert_eq!(lost.len(), 1);
        assert_eq!(lost[0].0, 0);
        // The loss is told before the example starts again elsewhere.
        let again = format!("measuring {}", lost[0].1);
        let lost_at = told
            .iter()
            .position(|t| *t == format!("lost {}", lost[0].1));
        let last_start = told.iter().rposition(|t| *t == again);
        assert!(lost_at < last_start, "{told:?}");
        for (i, d) in done.iter().enumerate() {
            assert_eq!(d.record.example, format!("e{i}"));
            assert_eq!(d.record.status, Status::Pass, "{}", d.record.message);
            assert_eq!(d.record.message, "lane 1");
            let stored = store.read(&format!("e{i}")).unwrap().unwrap();
            assert_eq!(stored.status, Status::Pass);
        }
    }

    // An example that faults on a GPU that still answers is the example's
    // failure: its record stands and the lane goes on measuring.
    #[test]
    fn a_fault_on_a_gpu_that_still_answers_is_the_examples() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(
            dir.path().join("results"),
            crate::limits::KnownGpu::target().name,
        );
        let ex = stand_in::numbered(dir.path(), 6);
        let (done, lost, _) = measure(&mut lanes(&[false, false], Some("e3")), &ex, &store);
        assert!(lost.is_empty());
        for (i, d) in done.iter().enumerate() {
            let expected = if i == 3 { Status::Fault } else { Status::Pass };
            assert_eq!(d.record.status, expected);
        }
    }

    // A job handed back is the next one taken, before any not yet taken.
    #[test]
    fn a_handed_back_job_is_taken_first() {
        let queue = Queue {
            next: AtomicUsize::new(0),
            handed_back: Mutex::new(Vec::new()),
            len: 3,
        };
        assert_eq!(queue.take(), Some(0));
        assert_eq!(queue.take(), Some(1));
        queue.hand_back(0);
        assert_eq!(queue.take(), Some(0));
        assert_eq!(queue.take(), Some(2));
        assert_eq!(queue.take(), None);
    }

    // When every lane's GPU stops answering, nothing panics and no example
    // is left without a record: those the lanes were measuring keep the
    // records they ended with, the others say no lane was left; none of
    // them is stored, since the GPUs failed, not the examples.
    #[test]
    fn with_every_gpu_lost_each_example_still_ends_with_a_record() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(
            dir.path().join("results"),
            crate::limits::KnownGpu::target().name,
        );
        let ex = stand_in::numbered(dir.path(), 4);
        let (done, lost, _) = measure(&mut lanes(&[true, true], None), &ex, &store);
        assert_eq!(lost.len(), 2);
        let mut lost_examples: Vec<&str> = lost.iter().map(|(_, e)| e.as_str()).collect();
        lost_examples.sort();
        assert_eq!(done.len(), 4);
        for d in &done {
            assert_eq!(d.record.status, Status::Fault);
            if lost_examples.contains(&d.record.example.as_str()) {
                assert!(d.record.message.ends_with("device unavailable"));
            } else {
                assert!(d.record.message.contains("no GPU lane was left"));
            }
            assert!(d.stored.is_none());
            assert!(store.read(&d.record.example).unwrap().is_none());
        }
    }
}
