//! One receiver's end of the relay's alerting: its bounded queue of notices, the task that
//! takes them (an Alertmanager's pusher or the webhook's poster), and the one log line an
//! overflow gets. Sending never waits ([`DropOldest`]).

use std::future::Future;

use tokio::task::JoinHandle;

use super::book::Notice;
use super::queue::{DropOldest, Pushed};
use crate::serve::logger::{Level, Logger};

/// A receiver's queue and task.
#[derive(Debug)]
pub struct Sink {
    queue: DropOldest<Notice>,
    /// What the receiver is, for the log: `alertmanager`, `webhook`.
    kind: &'static str,
    /// Where it is, as the log names it (never a URL that may hold a token).
    origin: String,
    logger: Logger,
    task: JoinHandle<()>,
}

impl Sink {
    /// A queue of `capacity` notices and the task `take` makes of it.
    pub fn start<F>(
        (kind, origin): (&'static str, String),
        capacity: usize,
        logger: Logger,
        take: impl FnOnce(DropOldest<Notice>) -> F,
    ) -> Sink
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let queue = DropOldest::new(capacity);
        let task = tokio::spawn(take(queue.clone()));
        Sink {
            queue,
            kind,
            origin,
            logger,
            task,
        }
    }

    /// Queues `notice`; never waits. The first time an overflow drops the oldest notices, one
    /// log line says so.
    pub fn send(&self, notice: Notice) {
        if let Pushed::DroppedOldest { first: true } = self.queue.push(notice) {
            self.logger.log(
                Level::Warn,
                &format!("{} queue full: dropping the oldest notices", self.kind),
                &[(self.kind, &self.origin)],
            );
        }
    }

    /// How many notices wait, and how many were dropped so far.
    pub fn backlog(&self) -> (usize, u64) {
        (self.queue.len(), self.queue.dropped())
    }

    /// Stops taking notices; the task sends what it holds and ends.
    pub fn close(self) -> JoinHandle<()> {
        self.queue.close();
        self.task
    }
}
