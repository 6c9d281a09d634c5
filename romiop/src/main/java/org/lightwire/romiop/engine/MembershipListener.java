package org.lightwire.romiop.engine;

/**
 * Told each time a client's view of the group changes (a member joined, left, was removed by the
 * leader's KeepAlive probes, or the leader failed over), so that reply consolidation knows how
 * many replies to expect.
 */
@FunctionalInterface
public interface MembershipListener
{
    /**
     * @param memberIds the members now, ascending; a fresh array the listener may keep.
     * @param leaderId  the sequencer, one of memberIds.
     */
    void onMembers(int[] memberIds, int leaderId);
}
