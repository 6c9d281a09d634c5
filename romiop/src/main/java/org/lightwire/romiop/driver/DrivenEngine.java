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

    /** Receives one packet. */
    @FunctionalInterface
    interface PacketInput
    {
        void onPacket(ByteBuffer buffer, int offset, int length, long nowNs);
    }

    /** @return an engine view made of three method references. */
    static DrivenEngine of(final PacketInput packets, final java.util.function.LongConsumer timer,
        final java.util.function.LongSupplier nextDeadline)
    {
        return new DrivenEngine()
        {
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
