package org.lightwire.romiop.engine;

/**
 * Told, at the client, when a member of its view answers a request with ViewChange UNAVAILABLE:
 * the leader lacks a majority and orders nothing, so the calls waiting on the group can fail at
 * once (the requests were not ordered) instead of at their consolidation timeout.
 */
@FunctionalInterface
public interface UnavailableHandler
{
    void onUnavailable(Unavailability notice);
}
