package org.lightwire.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.lightwire.transport.protocol.MessageType;

class FilterTest
{
    @Test
    void classifiesAgainstTheExpectedCallAndPacket()
    {
        assertEquals(PacketClass.IN_SEQUENCE, Filter.classify(5, 3, false, 5, 3));
        assertEquals(PacketClass.DUPLICATE, Filter.classify(5, 3, false, 5, 2));
        assertEquals(PacketClass.OUT_OF_SEQUENCE, Filter.classify(5, 3, false, 5, 4));
        assertEquals(PacketClass.NEW_CALL, Filter.classify(5, 3, false, 6, 0));
        assertEquals(PacketClass.NEW_CALL_START_MISSING, Filter.classify(5, 3, false, 6, 1));
        assertEquals(PacketClass.DUPLICATE, Filter.classify(5, 3, false, 4, 0));
        assertEquals(PacketClass.DUPLICATE, Filter.classify(5, 3, true, 5, 3), "a finished call's packets are all duplicates");
    }

    @Test
    void wideNumbersNeverWrapSoALatePacketIsNeverACallAhead()
    {
        // The paper's 8-bit numbers took call 0 for the one after 255, and a packet 129 calls
        // old for one 127 ahead; the wide numbers tell both apart for the connection's life.
        assertEquals(PacketClass.NEW_CALL, Filter.classify(255, 0, true, 256, 0));
        assertEquals(PacketClass.DUPLICATE, Filter.classify(256, 0, false, 255, 9));
        assertEquals(PacketClass.DUPLICATE, Filter.classify(300, 0, true, 300 - 129, 0));
        assertEquals(PacketClass.DUPLICATE, Filter.classify(1L << 40, 0, true, (1L << 40) - 256, 0));
        assertEquals(PacketClass.IN_SEQUENCE, Filter.classify(9, 256, false, 9, 256));
        assertEquals(PacketClass.DUPLICATE, Filter.classify(9, 257, false, 9, 1), "packet 1 is not packet 257");
        assertEquals(PacketClass.OUT_OF_SEQUENCE, Filter.classify(9, 1, false, 9, 257), "packet 257 is not packet 1");
    }

    @Test
    void batchHandsControlPacketsToTheEngineBeforeData()
    {
        final List<String> order = new ArrayList<>();
        final Recorder rec = new Recorder();
        final ServerEngine engine = new ServerEngine(ClientEngineTest.CONFIG, rec, rec, rec);
        final PacketBatch batch = new PacketBatch(4, 200, false);
        put(batch, Recorder.data(MessageType.PARTIAL, true, 1, 0, true, new byte[] {1}));
        put(batch, Recorder.data(MessageType.COMPLETE, true, 1, 1, false, new byte[] {2}));
        put(batch, Recorder.control(MessageType.RECLAIM, 1, 2));
        put(batch, ByteBuffer.wrap(new byte[] {4}));
        final ProtocolEngine spy = new ProtocolEngine(ClientEngineTest.CONFIG, rec, rec, rec)
        {
            @Override
            public void onPacket(final ByteBuffer packet, final long nowNs)
            {
                order.add(packet.remaining() >= org.lightwire.transport.protocol.HeaderFlyweight.HEADER_LENGTH ? MessageType.fromCode(packet.get(0)).name() : "short");
                engine.onPacket(packet, nowNs);
            }

            @Override
            public void onTimer(final long nowNs)
            {
            }

            @Override
            public boolean reclaim(final long nowNs)
            {
                return false;
            }

            @Override
            protected boolean awaitingPeer()
            {
                return false;
            }

            @Override
            public boolean isZombie()
            {
                return false;
            }
        };
        batch.dispatch(spy, 0);
        assertEquals(List.of("RECLAIM", "PARTIAL", "COMPLETE", "short"), order);
        assertEquals(0, batch.size());
        // The RECLAIM was handled before the data: it acknowledges nothing of call 1 yet.
        final Recorder.Sent ack = rec.sent.get(0);
        assertEquals(MessageType.RECLAIM_ACK, ack.type());
        assertEquals(0, ack.packet());
        assertEquals(1, engine.counters().truncated());
    }

    private static void put(final PacketBatch batch, final ByteBuffer packet)
    {
        batch.nextSlot().put(packet);
        batch.commit();
    }
}
