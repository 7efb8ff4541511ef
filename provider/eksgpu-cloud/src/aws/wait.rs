//! Waiting for long AWS operations (node groups, cluster updates): poll with
//! backoff until done, a deadline passes, or Terraform asks the provider to
//! stop. Polls are cheap `Describe*` calls; the SDK already retries each one.

use std::future::Future;
use std::time::Duration;

use tokio::time::Instant;

use super::AwsError;

/// What one poll saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Poll {
    Done,
    /// Still in progress, with the status EKS reports.
    Pending(String),
    /// Will not get there: the status and what EKS says is wrong.
    Failed(String, String),
}

#[derive(Debug, thiserror::Error)]
pub enum WaitError {
    #[error(transparent)]
    Aws(#[from] AwsError),
    #[error("{what} was still {status} after {}s (the timeout)", .after.as_secs())]
    TimedOut {
        what: String,
        status: String,
        after: Duration,
    },
    #[error("{what} ended {status}: {detail}")]
    Failed {
        what: String,
        status: String,
        detail: String,
    },
    #[error("cancelled by Terraform while waiting for {what} (last status {status})")]
    Cancelled { what: String, status: String },
}

/// Poll intervals: start short (a fast operation ends quickly), grow by half
/// each time, and stay at most `max` apart (EKS node groups take minutes).
#[derive(Debug, Clone, Copy)]
pub struct Backoff {
    pub first: Duration,
    pub max: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            first: Duration::from_secs(1),
            max: Duration::from_secs(15),
        }
    }
}

/// Polls until [`Poll::Done`], the `timeout`, or `cancel` completes.
pub async fn until<F, Fut>(
    what: &str,
    timeout: Duration,
    backoff: Backoff,
    cancel: impl Future<Output = ()>,
    mut poll: F,
) -> Result<(), WaitError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Poll, AwsError>>,
{
    let deadline = Instant::now() + timeout;
    let start = Instant::now();
    let mut interval = backoff.first;
    let mut status = String::from("unknown");
    tokio::pin!(cancel);
    loop {
        let polled = tokio::select! {
            p = poll() => p?,
            () = &mut cancel => return Err(WaitError::Cancelled { what: what.to_owned(), status }),
        };
        match polled {
            Poll::Done => return Ok(()),
            Poll::Failed(status, detail) => {
                return Err(WaitError::Failed {
                    what: what.to_owned(),
                    status,
                    detail,
                });
            }
            Poll::Pending(s) => status = s,
        }
        let now = Instant::now();
        if now >= deadline {
            return Err(WaitError::TimedOut {
                what: what.to_owned(),
                status,
                after: now - start,
            });
        }
        tracing::debug!(what, %status, wait_ms = interval.as_millis() as u64, "waiting");
        tokio::select! {
            () = tokio::time::sleep(interval.min(deadline - now)) => {}
            () = &mut cancel => return Err(WaitError::Cancelled { what: what.to_owned(), status }),
        }
        interval = (interval * 3 / 2).min(backoff.max);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    fn fast() -> Backoff {
        Backoff {
            first: Duration::from_millis(10),
            max: Duration::from_millis(40),
        }
    }

    #[tokio::test]
    async fn returns_once_done() {
        let n = AtomicUsize::new(0);
        let r = until(
            "node group x",
            Duration::from_secs(5),
            fast(),
            std::future::pending(),
            || async {
                if n.fetch_add(1, Ordering::SeqCst) < 3 {
                    Ok(Poll::Pending("CREATING".into()))
                } else {
                    Ok(Poll::Done)
                }
            },
        )
        .await;
        assert!(r.is_ok());
        assert_eq!(n.load(Ordering::SeqCst), 4);
    }

    #[tokio::test]
    async fn times_out_with_the_last_status() {
        let r = until(
            "node group x",
            Duration::from_millis(100),
            fast(),
            std::future::pending(),
            || async { Ok(Poll::Pending("CREATING".into())) },
        )
        .await;
        let e = r.unwrap_err();
        assert!(
            matches!(&e, WaitError::TimedOut { status, .. } if status == "CREATING"),
            "{e}"
        );
        assert!(e.to_string().contains("still CREATING"));
    }

    #[tokio::test]
    async fn failure_names_the_status_and_detail() {
        let r = until(
            "node group x",
            Duration::from_secs(1),
            fast(),
            std::future::pending(),
            || async {
                Ok(Poll::Failed(
                    "CREATE_FAILED".into(),
                    "AsgInstanceLaunchFailures: no capacity".into(),
                ))
            },
        )
        .await;
        assert!(
            r.unwrap_err()
                .to_string()
                .contains("CREATE_FAILED: AsgInstanceLaunchFailures")
        );
    }

    #[tokio::test]
    async fn cancellation_ends_the_wait_promptly() {
        let started = std::time::Instant::now();
        let cancel = tokio::time::sleep(Duration::from_millis(50));
        let slow = Backoff {
            first: Duration::from_secs(30),
            max: Duration::from_secs(30),
        };
        let r = until("node group x", Duration::from_secs(600), slow, cancel, || async {
            Ok(Poll::Pending("CREATING".into()))
        })
        .await;
        assert!(matches!(r, Err(WaitError::Cancelled { .. })));
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}
