package org.lightwire.romiop.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/** Golden bytes and validation of State (10): ASK, CHUNK, REFUSED. */
class StateFlyweightTest
{
    private static String header(final int size)
    {
        return "524d4f50" + "11" + "00" + "000a" + String.format("%08x", size);
    }

    private static StateFlyweight written(final int kind, final long cut, final int offset, final int total, final byte[] data)
    {
        return written(kind, kind == StateFlyweight.CHUNK ? 0x0A0B0C : 0, cut, offset, total, data);
    }

    private static StateFlyweight written(final int kind, final int snapshot, final long cut, final int offset, final int total, final byte[] data)
    {
        final ByteBuffer b = ByteBuffer.allocate(StateFlyweight.HEADER_LENGTH + data.length);
        final StateFlyweight w = (StateFlyweight)new StateFlyweight().wrap(b, 0);
        w.set(ByteOrder.BIG_ENDIAN, 1, 2, kind, snapshot, cut, offset, total, data.length);
        b.put(StateFlyweight.HEADER_LENGTH, data);
        return w;
    }

    @Test
    void chunkGoldenBytesAndRoundTrip()
    {
        final StateFlyweight w = written(StateFlyweight.CHUNK, 0x0102030405060708L, 16, 19, new byte[] {(byte)0xAA, (byte)0xBB, (byte)0xCC});
        assertEquals(43, w.packetSize());
        assertEquals(header(43) + "00000001" + "00000002" + "010a0b0c" + "0102030405060708" + "00000010" + "00000013" + "aabbcc",
            Hex.of(w.buffer(), 43));
        final StateFlyweight r = (StateFlyweight)new StateFlyweight().wrap(Hex.parse(Hex.of(w.buffer(), 43)), 0);
        assertNull(r.validate(43));
        assertEquals(StateFlyweight.CHUNK, r.kind());
        assertEquals(0x0102030405060708L, r.cut());
        assertEquals(0x0A0B0C, r.snapshot());
        assertEquals(16, r.stateOffset());
        assertEquals(19, r.total());
        assertEquals(3, r.dataLength());
        assertEquals((byte)0xCC, r.buffer().get(r.dataOffset() + 2));
        assertEquals("State{PacketHeader_1_0{magic=RMOP, version=0x11, flags=0x0, order=BIG_ENDIAN, type=STATE, size=43}, sender=1, " +
            "packetId=2, kind=CHUNK, snapshot=658188, cut=72623859790382856, offset=16, total=19, data=3}", r.toString());
    }

    @Test
    void askNamesItsTransferAndCarriesNoData()
    {
        final StateFlyweight ask = written(StateFlyweight.ASK, 30, 0, 0x5EED, new byte[0]);
        assertNull(ask.validate(StateFlyweight.HEADER_LENGTH));
        assertEquals(0x5EED, ask.transfer());
        assertEquals(Invalid.BAD_FIELD, written(StateFlyweight.ASK, 30, 0, 0, new byte[0]).validate(StateFlyweight.HEADER_LENGTH),
            "an ASK without a transfer nonce");
        assertEquals(Invalid.SIZE_MISMATCH, written(StateFlyweight.ASK, 30, 0, 1, new byte[1]).validate(StateFlyweight.HEADER_LENGTH + 1));
        assertEquals(Invalid.BAD_FIELD, written(StateFlyweight.ASK, 30, -1, 1, new byte[0]).validate(StateFlyweight.HEADER_LENGTH));
    }

    @Test
    void aChunkLiesInsideItsStateAndOnlyAnEmptyStateComesWithoutData()
    {
        assertEquals(Invalid.BAD_FIELD, written(StateFlyweight.CHUNK, 30, 17, 19, new byte[3]).validate(StateFlyweight.HEADER_LENGTH + 3),
            "bytes 17..20 of a state of 19");
        assertEquals(Invalid.BAD_FIELD, written(StateFlyweight.CHUNK, 30, 0, 19, new byte[0]).validate(StateFlyweight.HEADER_LENGTH));
        assertNull(written(StateFlyweight.CHUNK, 30, 0, 0, new byte[0]).validate(StateFlyweight.HEADER_LENGTH));
        assertEquals(Invalid.BAD_FIELD, written(StateFlyweight.CHUNK, 30, Integer.MAX_VALUE, Integer.MAX_VALUE, new byte[3])
            .validate(StateFlyweight.HEADER_LENGTH + 3), "offset + length overflows");
        assertEquals(Invalid.BAD_FIELD, written(StateFlyweight.CHUNK, -5, 0, 3, new byte[3]).validate(StateFlyweight.HEADER_LENGTH + 3));
    }

    @Test
    void refusalCarriesItsReasonAndNothingElse()
    {
        final byte[] reason = "no Checkpointable".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertNull(written(StateFlyweight.REFUSED, 30, 0, 0, reason).validate(StateFlyweight.HEADER_LENGTH + reason.length));
        assertEquals(Invalid.BAD_FIELD, written(StateFlyweight.REFUSED, 30, 1, 0, reason).validate(StateFlyweight.HEADER_LENGTH + reason.length));
        assertEquals(Invalid.BAD_FIELD, written(4, 30, 0, 0, new byte[0]).validate(StateFlyweight.HEADER_LENGTH), "no kind 4");
        assertNull(written(StateFlyweight.CAPTURING, 30, 0, 0, new byte[0]).validate(StateFlyweight.HEADER_LENGTH));
        assertEquals(Invalid.SIZE_MISMATCH, written(StateFlyweight.CAPTURING, 30, 0, 0, new byte[1]).validate(StateFlyweight.HEADER_LENGTH + 1));
        assertEquals(Invalid.BAD_FIELD, written(StateFlyweight.REFUSED, 7, 30, 0, 0, reason).validate(StateFlyweight.HEADER_LENGTH + reason.length),
            "a refusal names no snapshot");
        assertEquals(Invalid.BAD_FIELD, written(StateFlyweight.CHUNK, 0, 30, 0, 3, new byte[3]).validate(StateFlyweight.HEADER_LENGTH + 3),
            "a chunk names its snapshot");
        assertNull(written(StateFlyweight.ASK, 0xFFFFFF, 30, 0, 1, new byte[0]).validate(StateFlyweight.HEADER_LENGTH), "an ASK names the one it reads");
    }
}
