package org.lightwire.romiop.engine;

/** Told when a client's view of the group changes (a member was removed). */
@FunctionalInterface
public interface MembershipListener
{
    /**
     * @param memberIds the members now, in configuration order.
     * @param leaderId  the sequencer.
     */
    void onMembers(int[] memberIds, int leaderId);
}
