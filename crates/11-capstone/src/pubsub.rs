//! Channels: `SUBSCRIBE`, `UNSUBSCRIBE` and `PUBLISH`.
//!
//! A subscriber is its client id and its [`Outbox`]. `PUBLISH` encodes the message
//! once and appends the bytes to each subscriber's outbox; the subscriber's writer
//! task sends them. A subscriber whose outbox the message would take past its bound is
//! disconnected and no longer counted.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::{Frame, Outbox};

/// The subscribers of one channel: each client's id and outbox.
type Members = Vec<(u64, Rc<Outbox>)>;

/// Who listens on which channel.
#[derive(Debug, Default)]
pub struct PubSub {
    channels: RefCell<HashMap<Vec<u8>, Members>>,
}

impl PubSub {
    /// Adds client `id` to `channel`.
    pub fn subscribe(&self, channel: &[u8], id: u64, outbox: &Rc<Outbox>) {
        let mut channels = self.channels.borrow_mut();
        let members = channels.entry(channel.to_vec()).or_default();
        if !members.iter().any(|(member, _)| *member == id) {
            members.push((id, Rc::clone(outbox)));
        }
    }

    /// Takes client `id` off `channel`.
    pub fn unsubscribe(&self, channel: &[u8], id: u64) {
        let mut channels = self.channels.borrow_mut();
        if let Some(members) = channels.get_mut(channel) {
            members.retain(|(member, _)| *member != id);
            if members.is_empty() {
                channels.remove(channel);
            }
        }
    }

    // ANCHOR: publish
    /// Sends `message` to every subscriber of `channel`; returns how many it was sent
    /// to. As Redis counts, that includes a subscriber this very message pushes past
    /// its bound (Redis schedules such a client to close, and counts it), not one that
    /// an earlier message disconnected.
    pub fn publish(&self, channel: &[u8], message: &[u8]) -> usize {
        let frame = Frame::Array(Some(vec![
            Frame::bulk("message"),
            Frame::bulk(channel),
            Frame::bulk(message),
        ]));
        let bytes = frame.to_bytes();
        // Outboxes are cloned out first: pushing wakes tasks, with no borrow held.
        let members: Vec<Rc<Outbox>> = match self.channels.borrow().get(channel) {
            Some(members) => members
                .iter()
                .map(|(_, outbox)| Rc::clone(outbox))
                .collect(),
            None => return 0,
        };
        // A subscriber pushed past its bound by this push is disconnected, and counted.
        members
            .iter()
            .filter(|outbox| {
                let open = outbox.closed().is_none();
                outbox.push_bytes(&bytes);
                open
            })
            .count()
    }
    // ANCHOR_END: publish
}
