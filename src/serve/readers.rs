//! How many readers are connected to the relay now: counted by the accept loop, shown on the
//! status page.
//!
//! A connection is counted from its acceptance to its close, TLS handshake included; readers
//! that keep their connection alive between polls (dashboards, Prometheus) count for as long as
//! they stay, so the count is the number of readers at the moment more than a rate of requests.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The number of connections open.
#[derive(Debug, Default)]
pub struct OpenConnections(AtomicUsize);

/// Counts one connection while it lives.
#[derive(Debug)]
pub struct Counted(Arc<OpenConnections>);

impl OpenConnections {
    /// Counts a connection until the returned guard is dropped.
    pub fn open(self: &Arc<Self>) -> Counted {
        self.0.fetch_add(1, Ordering::Relaxed);
        Counted(Arc::clone(self))
    }

    /// How many are open now.
    pub fn now(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        (self.0).0.fetch_sub(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_counts_while_its_guard_lives() {
        let open = Arc::new(OpenConnections::default());
        let first = open.open();
        let second = open.open();
        assert_eq!(open.now(), 2);
        drop(first);
        assert_eq!(open.now(), 1);
        drop(second);
        assert_eq!(open.now(), 0);
    }
}
