package org.lightwire.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;
import org.lightwire.transport.protocol.HeaderFlyweight;
import org.lightwire.transport.protocol.MessageType;

/**
 * Bad input on the receive path: truncated packets, size fields that disagree with the packet,
 * unknown types, bad BOOLs and random bytes are dropped and counted; none throws and none changes
 * the engine's state, whatever state it is in.
 */
class BadInputTest
{
    static final long MS = 1_000_000L;

    private static ClientEngine clientIn(final String state, final Recorder rec)
    {
        final ClientEngine c = new ClientEngine(ClientEngineTest.CONFIG, rec, rec, rec);
        switch (state)
        {
            case "waiting":
                c.send(ByteBuffer.allocate(150), true, true, 0);
                break;
            case "inProgress":
                c.send(ByteBuffer.allocate(150), false, true, 0);
                break;
            case "idleAckPending":
                c.send(ByteBuffer.allocate(10), true, true, 0);
                c.onPacket(Recorder.data(MessageType.COMPLETE, true, 1, 0, false, new byte[3]), 0);
                break;
            default:
                break;
        }
        return c;
    }

    private static ServerEngine serverIn(final String state, final Recorder rec)
    {
        final ServerEngine s = new ServerEngine(ClientEngineTest.CONFIG, rec, rec, rec);
        switch (state)
        {
            case "executing":
                s.onPacket(Recorder.data(MessageType.COMPLETE, true, 1, 0, false, new byte[3]), 0);
                break;
            case "inProgress":
                s.onPacket(Recorder.data(MessageType.PARTIAL, true, 1, 0, false, new byte[3]), 0);
                break;
            case "replyHeld":
                s.onPacket(Recorder.data(MessageType.COMPLETE, true, 1, 0, false, new byte[3]), 0);
                s.send(ByteBuffer.allocate(300), true, 0);
                break;
            default:
                break;
        }
        return s;
    }

    @Test
    void randomBytesAreDroppedAndCountedInEveryState()
    {
        final SplittableRandom random = new SplittableRandom(20261122);
        for (final String state : new String[] {"idle", "waiting", "inProgress", "idleAckPending"})
        {
            final Recorder rec = new Recorder();
            final ClientEngine engine = clientIn(state, rec);
            hammer(random, engine, rec, engine::toString);
        }
        for (final String state : new String[] {"idle", "executing", "inProgress", "replyHeld"})
        {
            final Recorder rec = new Recorder();
            final ServerEngine engine = serverIn(state, rec);
            hammer(random, engine, rec, engine::toString);
        }
    }

    private static void hammer(final SplittableRandom random, final ProtocolEngine engine, final Recorder rec, final Supplier<String> state)
    {
        final String before = state.get();
        final int sentBefore = rec.sent.size();
        final int deliveredBefore = rec.deliveredChunks.size();
        final long invalidBefore = engine.counters().invalidPackets();
        final HeaderFlyweight h = new HeaderFlyweight();
        int malformed = 0;
        for (int i = 0; i < 20_000; i++)
        {
            final ByteBuffer packet = randomMalformedPacket(random, i);
            h.wrap(packet, 0);
            if (h.validate(packet.remaining()) == null)
            {
                continue;
            }
            malformed++;
            engine.onPacket(packet, i);
        }
        assertEquals(before, state.get(), "state unchanged");
        assertEquals(sentBefore, rec.sent.size(), "nothing sent in answer");
        assertEquals(deliveredBefore, rec.deliveredChunks.size(), "nothing delivered");
        assertEquals(invalidBefore + malformed, engine.counters().invalidPackets(), "every one counted");
        assertEquals(engine.counters().invalidPackets(),
            engine.counters().truncated() + engine.counters().unknownType() + engine.counters().sizeMismatch() + engine.counters().badBoolean());
    }

    /** Cycles through the kinds of damage, with random bytes elsewhere. */
    private static ByteBuffer randomMalformedPacket(final SplittableRandom random, final int i)
    {
        final int kind = i % 5;
        final int length = kind == 0 ? random.nextInt(0, HeaderFlyweight.HEADER_LENGTH) : random.nextInt(HeaderFlyweight.HEADER_LENGTH, 300);
        final byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        final ByteBuffer packet = ByteBuffer.wrap(bytes);
        if (length >= HeaderFlyweight.HEADER_LENGTH && kind > 0)
        {
            final HeaderFlyweight h = new HeaderFlyweight().wrap(packet, 0);
            final MessageType type = MessageType.values()[random.nextInt(MessageType.values().length)];
            h.set(type, random.nextBoolean(), length, random.nextInt(256), random.nextInt(256), random.nextBoolean());
            switch (kind)
            {
                case 1:
                    packet.put(0, (byte)random.nextInt(7, 256));
                    break;
                case 2:
                    packet.putShort(2, (short)(length + random.nextInt(1, 100)));
                    break;
                case 3:
                    packet.put(random.nextBoolean() ? 1 : 6, (byte)random.nextInt(2, 256));
                    break;
                default:
                    // kind 4: fully random bytes, almost always malformed; valid ones are skipped.
                    random.nextBytes(bytes);
                    break;
            }
        }
        return packet;
    }
}
