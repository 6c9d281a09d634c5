package org.lightwire.transport.link.memory;

/**
 * One of the two endpoints of an in-memory network. A direction is named by the side that sends
 * on it: the faults and counters of {@code A} are those of the path A to B.
 */
public enum Side
{
    A,
    B;

    /** @return the other endpoint, the one packets sent from this side arrive at. */
    public Side peer()
    {
        return this == A ? B : A;
    }
}
