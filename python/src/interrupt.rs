//! Ctrl-C during a search: the work runs on a worker thread with the GIL released while
//! the calling thread runs Python's signal handlers.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::time::Duration;

use pyo3::prelude::*;

/// How often a search running with the GIL released looks for Ctrl-C.
pub(crate) const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// Runs `work` on a worker thread with the GIL released, checking for signals every
/// [`SIGNAL_POLL`] from the calling thread. When a signal handler raises (Ctrl-C raises
/// `KeyboardInterrupt`), `stop` is set, the work is waited for (it stops at once with what
/// it has) and the exception is raised.
pub(crate) fn interruptible<T: Send>(
    py: Python<'_>,
    stop: &Arc<AtomicBool>,
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    py.detach(|| {
        std::thread::scope(|scope| {
            let (tx, rx) = mpsc::channel();
            let worker = scope.spawn(move || {
                // The receiver waits for it (or has seen the worker panic).
                let _ = tx.send(work());
            });
            let mut raised = None;
            loop {
                match rx.recv_timeout(SIGNAL_POLL) {
                    Ok(out) => {
                        return match raised {
                            Some(e) => Err(e),
                            None => Ok(out),
                        }
                    }
                    Err(RecvTimeoutError::Timeout) => {
                        if raised.is_none() {
                            if let Err(e) = Python::attach(|py| py.check_signals()) {
                                stop.store(true, Ordering::Relaxed);
                                raised = Some(e);
                            }
                        }
                    }
                    // The worker panicked: its panic goes on in this thread.
                    Err(RecvTimeoutError::Disconnected) => match worker.join() {
                        Err(panic) => std::panic::resume_unwind(panic),
                        Ok(()) => unreachable!("a worker that returned has sent its answer"),
                    },
                }
            }
        })
    })
}
