//! One receiver's end of the relay's alerting ([`Sink`]): the bounded queue between the
//! relay's poll loop and the receiver's task (an Alertmanager's pusher or the webhook's
//! poster), and the one log line an overflow gets.
//!
//! The queue ([`DropOldest`]) has many senders and one taker. Pushing never waits, so a
//! receiver that is down or slow never holds the polls up; when the queue is full the oldest
//! item is dropped to make room, and the pusher is told whether this is the first drop since
//! the taker last caught up (one log line an episode, not one a drop).

use std::collections::VecDeque;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::Notify;
use tokio::task::JoinHandle;

use super::book::Notice;
use crate::serve::logger::{Level, Logger};

/// How a receiver's log lines name it: its kind and where it is (never a URL that may hold a
/// token).
#[derive(Debug, Clone)]
pub struct Voice {
    /// `alertmanager`, `webhook`.
    pub kind: &'static str,
    /// Its origin.
    pub origin: String,
    /// Where the lines go.
    pub logger: Logger,
}

impl Voice {
    /// Logs `message` with the receiver's name, then `fields`.
    pub fn log(&self, level: Level, message: &str, fields: &[(&str, &str)]) {
        let mut named = vec![(self.kind, self.origin.as_str())];
        named.extend_from_slice(fields);
        self.logger.log(level, message, &named);
    }
}

/// A receiver's queue and task.
#[derive(Debug)]
pub struct Sink {
    queue: DropOldest<Notice>,
    voice: Voice,
    task: JoinHandle<()>,
}

impl Sink {
    /// A queue of `capacity` notices and the task `take` makes of it.
    pub fn start<F>(
        voice: Voice,
        capacity: usize,
        take: impl FnOnce(DropOldest<Notice>) -> F,
    ) -> Sink
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let queue = DropOldest::new(capacity);
        let task = tokio::spawn(take(queue.clone()));
        Sink { queue, voice, task }
    }

    /// Queues `notice`; never waits. The first time an overflow drops the oldest notices, one
    /// log line says so.
    pub fn send(&self, notice: Notice) {
        if self.queue.push(notice) {
            let message = format!(
                "{} queue full: dropping the oldest notices",
                self.voice.kind
            );
            self.voice.log(Level::Warn, &message, &[]);
        }
    }

    /// The receiver's kind (`alertmanager`, `webhook`).
    pub fn kind(&self) -> &'static str {
        self.voice.kind
    }

    /// How many notices wait, and how many were dropped so far.
    pub fn backlog(&self) -> (usize, u64) {
        let state = self.queue.state();
        (state.items.len(), state.dropped)
    }

    /// Stops taking notices; the task sends what it holds and ends.
    pub fn close(self) -> JoinHandle<()> {
        self.queue.close();
        self.task
    }
}

#[derive(Debug)]
struct State<T> {
    items: VecDeque<T>,
    dropped: u64,
    overflowing: bool,
    closed: bool,
}

#[derive(Debug)]
struct Shared<T> {
    state: Mutex<State<T>>,
    ready: Notify,
    capacity: usize,
}

/// A bounded queue that drops its oldest item when full (see the module doc).
#[derive(Debug)]
pub struct DropOldest<T> {
    shared: Arc<Shared<T>>,
}

impl<T> Clone for DropOldest<T> {
    fn clone(&self) -> Self {
        DropOldest {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<T> DropOldest<T> {
    /// An empty queue of at most `capacity` items (at least one).
    pub fn new(capacity: usize) -> DropOldest<T> {
        DropOldest {
            shared: Arc::new(Shared {
                state: Mutex::new(State {
                    items: VecDeque::new(),
                    dropped: 0,
                    overflowing: false,
                    closed: false,
                }),
                ready: Notify::new(),
                capacity: capacity.max(1),
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, State<T>> {
        self.shared
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues `item` at once, dropping the oldest when full; true when this began an overflow
    /// (the first drop since the queue was last empty).
    pub fn push(&self, item: T) -> bool {
        let first_drop = {
            let mut state = self.state();
            let full = state.items.len() >= self.shared.capacity;
            if full {
                state.items.pop_front();
                state.dropped += 1;
            }
            let first_drop = full && !state.overflowing;
            state.overflowing |= full;
            state.items.push_back(item);
            first_drop
        };
        self.shared.ready.notify_one();
        first_drop
    }

    /// Everything queued now, oldest first (nothing when empty).
    pub fn drain(&self) -> Vec<T> {
        let mut state = self.state();
        state.overflowing = false;
        state.items.drain(..).collect()
    }

    /// The oldest item, waiting for one; `None` once closed and empty.
    pub async fn pop(&self) -> Option<T> {
        while self.wait().await {
            let mut state = self.state();
            if let Some(item) = state.items.pop_front() {
                state.overflowing &= !state.items.is_empty();
                return Some(item);
            }
        }
        None
    }

    /// Waits until something is queued or the queue is closed; `false` once closed and empty.
    pub async fn wait(&self) -> bool {
        loop {
            {
                let state = self.state();
                if !state.items.is_empty() {
                    return true;
                }
                if state.closed {
                    return false;
                }
            }
            self.shared.ready.notified().await;
        }
    }

    /// No more items will come: the taker finishes what is queued and stops.
    pub fn close(&self) {
        self.state().closed = true;
        self.shared.ready.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_full_queue_drops_its_oldest_and_says_so_once_an_episode() {
        let queue = DropOldest::new(3);
        let first_drops: Vec<bool> = (0..6).map(|i| queue.push(i)).collect();
        assert_eq!(first_drops, [false, false, false, true, false, false]);
        assert_eq!(queue.state().dropped, 3);
        assert_eq!(queue.drain(), [3, 4, 5], "the newest kept, in order");
        for i in 0..4 {
            queue.push(i);
        }
        assert_eq!(queue.state().dropped, 4);
        assert!(!queue.push(9), "the same overflow");
        assert_eq!(queue.pop().await, Some(2));
        queue.close();
        assert_eq!(queue.pop().await, Some(3));
        assert_eq!(queue.pop().await, Some(9));
        assert_eq!(queue.pop().await, None);
        assert!(!queue.wait().await);
    }
}
