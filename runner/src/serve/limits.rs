//! What keeps one client or one flood from taking the service: a bounded
//! queue in front of the one job that runs at a time (compiling and
//! measuring; a full queue answers "busy, retry"), and a token bucket per
//! client address.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::{Semaphore, SemaphorePermit};

/// One job at a time, at most `capacity` more waiting.
#[derive(Debug)]
pub struct Queue {
    running: Semaphore,
    admitted: AtomicUsize,
    capacity: usize,
    /// A running average of how long a job takes, ms.
    job_ms: AtomicU64,
}

/// A place in the queue; dropping it gives the place back.
#[derive(Debug)]
pub struct Ticket {
    queue: Arc<Queue>,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.queue.admitted.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The queue is full: try again after this many seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Busy {
    /// Seconds.
    pub retry_after_s: u64,
}

impl Queue {
    /// A queue where `capacity` jobs may wait behind the running one.
    pub fn new(capacity: usize) -> Arc<Queue> {
        Arc::new(Queue {
            running: Semaphore::new(1),
            admitted: AtomicUsize::new(0),
            capacity,
            job_ms: AtomicU64::new(1000),
        })
    }

    /// A place in the queue, or [`Busy`] when every place is taken.
    pub fn admit(self: &Arc<Queue>) -> Result<Ticket, Busy> {
        let before = self.admitted.fetch_add(1, Ordering::SeqCst);
        if before > self.capacity {
            self.admitted.fetch_sub(1, Ordering::SeqCst);
            return Err(Busy {
                retry_after_s: self.retry_after_s(),
            });
        }
        Ok(Ticket {
            queue: Arc::clone(self),
        })
    }

    /// Waits for the one running place.
    pub async fn turn(&self) -> SemaphorePermit<'_> {
        self.running
            .acquire()
            .await
            .expect("the queue's semaphore is never closed")
    }

    /// Notes how long a job took, for [`Busy::retry_after_s`].
    pub fn took(&self, elapsed: Duration) {
        let ms = elapsed.as_millis().min(u64::MAX as u128) as u64;
        let old = self.job_ms.load(Ordering::Relaxed);
        self.job_ms.store((old * 3 + ms) / 4, Ordering::Relaxed);
    }

    /// How long until a place is likely free: the queue's jobs at the
    /// average job's time, at least a second.
    fn retry_after_s(&self) -> u64 {
        let ms = self.job_ms.load(Ordering::Relaxed) * (self.capacity as u64 + 1);
        ms.div_ceil(1000).max(1)
    }

    /// Jobs running, jobs waiting, places to wait in.
    pub fn state(&self) -> (usize, usize, usize) {
        let running = 1 - self.running.available_permits().min(1);
        let admitted = self.admitted.load(Ordering::SeqCst);
        (running, admitted.saturating_sub(running), self.capacity)
    }
}

/// Requests per minute per client address, in bursts of as many.
#[derive(Debug)]
pub struct RateLimit {
    per_minute: u32,
    buckets: Mutex<HashMap<IpAddr, Bucket>>,
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// Clients at which full buckets are forgotten.
const FORGET_AT: usize = 10_000;

impl RateLimit {
    /// `per_minute` requests a minute per address (0: no limit).
    pub fn new(per_minute: u32) -> RateLimit {
        RateLimit {
            per_minute,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes a token for `client`, or says in how many seconds one will be
    /// there.
    pub fn take(&self, client: IpAddr) -> Result<(), u64> {
        if self.per_minute == 0 {
            return Ok(());
        }
        let capacity = f64::from(self.per_minute);
        let per_s = capacity / 60.0;
        let now = Instant::now();
        let mut buckets = self.buckets.lock().expect("rate buckets");
        if buckets.len() >= FORGET_AT {
            buckets.retain(|_, b| {
                b.tokens + now.duration_since(b.at).as_secs_f64() * per_s < capacity
            });
        }
        let bucket = buckets.entry(client).or_insert(Bucket {
            tokens: capacity,
            at: now,
        });
        bucket.tokens =
            (bucket.tokens + now.duration_since(bucket.at).as_secs_f64() * per_s).min(capacity);
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err((((1.0 - bucket.tokens) / per_s).ceil() as u64).max(1))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The running job and `capacity` waiting ones are admitted, the next
    // is busy with a wait of at least a second; a place given back is
    // taken again.
    #[test]
    fn the_queue_is_bounded() {
        let queue = Queue::new(2);
        let tickets: Vec<Ticket> = (0..3).map(|_| queue.admit().unwrap()).collect();
        let busy = queue.admit().unwrap_err();
        assert!(busy.retry_after_s >= 1);
        assert_eq!(queue.state(), (0, 3, 2));
        drop(tickets);
        assert!(queue.admit().is_ok());
    }

    // A client gets its burst, then waits; another client is not held up.
    #[test]
    fn each_client_has_its_own_bucket() {
        let limit = RateLimit::new(3);
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        for _ in 0..3 {
            limit.take(a).unwrap();
        }
        let wait = limit.take(a).unwrap_err();
        assert!((1..=20).contains(&wait), "{wait}");
        assert!(limit.take(b).is_ok());
        assert!(RateLimit::new(0).take(a).is_ok());
    }
}
