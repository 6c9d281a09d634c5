package org.lightwire.romiop.driver;

import java.nio.ByteBuffer;

/**
 * The three calls a {@link GroupDriver} makes on an I/O-free engine ({@code MemberEngine} and
 * {@code GroupClientEngine} both have them; adapt with a method-reference triple,
 * {@link #of}).
 */
public interface DrivenEngine
{
    void onPacket(ByteBuffer buffer, int offset, int length, long nowNs);

    void onTimer(long nowNs);

    long nextDeadlineNs();

    /**
     * @return false while a client's request need not wake the engine's driver: the engine acts
     *         on a request only when something else arrives (a follower, on the leader's order
     *         for it), and a polling driver then reads it with that (see
     *         {@code UdpGroupLink.selectRequests}). True by default. Asked with the engine's
     *         lock held, after each time the engine ran.
     */
    default boolean wakesForRequests()
    {
        return true;
    }

    /** Receives one packet. */
    @FunctionalInterface
    interface PacketInput
    {
        void onPacket(ByteBuffer buffer, int offset, int length, long nowNs);
    }

    /** @return an engine view made of three method references, woken by every request. */
    static DrivenEngine of(final PacketInput packets, final java.util.function.LongConsumer timer,
        final java.util.function.LongSupplier nextDeadline)
    {
        return of(packets, timer, nextDeadline, () -> true);
    }

    /** @return an engine view made of four method references (the last is {@link #wakesForRequests}). */
    static DrivenEngine of(final PacketInput packets, final java.util.function.LongConsumer timer,
        final java.util.function.LongSupplier nextDeadline, final java.util.function.BooleanSupplier wakesForRequests)
    {
        return new DrivenEngine()
        {
            @Override
            public boolean wakesForRequests()
            {
                return wakesForRequests.getAsBoolean();
            }

            @Override
            public void onPacket(final ByteBuffer buffer, final int offset, final int length, final long nowNs)
            {
                packets.onPacket(buffer, offset, length, nowNs);
            }

            @Override
            public void onTimer(final long nowNs)
            {
                timer.accept(nowNs);
            }

            @Override
            public long nextDeadlineNs()
            {
                return nextDeadline.getAsLong();
            }
        };
    }
}
