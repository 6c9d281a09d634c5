package org.lightwire.it;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * GIOP 1.2 messages written and read by hand, big-endian, for tests that talk to a server over a
 * raw Lightwire transport connection without an ORB: a Request for {@code echo::echoString} (or
 * any operation with one string argument) addressed by object key, and the fields of the Reply
 * that comes back. CDR alignment is relative to the message start.
 */
public final class RawGiop
{
    public static final int REQUEST = 0;
    public static final int REPLY = 1;
    public static final int CANCEL_REQUEST = 2;
    public static final int LOCATE_REQUEST = 3;
    public static final int CLOSE_CONNECTION = 5;
    public static final int MESSAGE_ERROR = 6;
    public static final int FRAGMENT = 7;
    public static final int NO_EXCEPTION = 0;
    public static final int SYSTEM_EXCEPTION = 2;

    private ByteBuffer b = ByteBuffer.allocate(256);

    private RawGiop(final int type, final int flags)
    {
        b.put(new byte[] {'G', 'I', 'O', 'P', 1, 2, (byte)flags, (byte)type}).putInt(0);
    }

    /** A GIOP 1.2 message header of this type (and flags: 0x02 is "more fragments"); finish with {@link #bytes()}. */
    public static RawGiop message(final int type, final int flags)
    {
        return new RawGiop(type, flags);
    }

    /**
     * @param key the object key, e.g. "echo" (a TestServer maps its object names).
     * @param responseFlags 3 for a two-way call, 0 for a one-way.
     * @param codeSets the CodeSets context's char and wchar code sets, or null for no context.
     * @return a GIOP 1.2 Request with one string argument.
     */
    public static byte[] request(final int requestId, final int responseFlags, final String key, final String operation,
        final String argument, final int[] codeSets)
    {
        final RawGiop m = message(REQUEST, 0).ulong(requestId).octets(responseFlags, 0, 0, 0).ushort(0)
            .sequence(key.getBytes(StandardCharsets.ISO_8859_1)).string(operation);
        if (codeSets == null)
        {
            m.ulong(0);
        }
        else
        {
            m.ulong(1).ulong(1).ulong(12).octets(0, 0, 0, 0).ulong(codeSets[0]).ulong(codeSets[1]);
        }
        return m.align(8).utf8String(argument).bytes();
    }

    public RawGiop octets(final int... values)
    {
        ensure(values.length);
        for (final int v : values)
        {
            b.put((byte)v);
        }
        return this;
    }

    public RawGiop align(final int boundary)
    {
        final int rest = b.position() % boundary;
        if (rest != 0)
        {
            ensure(boundary - rest);
            b.position(b.position() + boundary - rest);
        }
        return this;
    }

    public RawGiop ushort(final int v)
    {
        align(2);
        ensure(2);
        b.putShort((short)v);
        return this;
    }

    public RawGiop ulong(final int v)
    {
        align(4);
        ensure(4);
        b.putInt(v);
        return this;
    }

    public RawGiop sequence(final byte[] data)
    {
        ulong(data.length);
        ensure(data.length);
        b.put(data);
        return this;
    }

    /** A string in ISO 8859-1 with its NUL: what the header's operation is. */
    public RawGiop string(final String s)
    {
        final byte[] text = s.getBytes(StandardCharsets.ISO_8859_1);
        ulong(text.length + 1);
        ensure(text.length + 1);
        b.put(text).put((byte)0);
        return this;
    }

    /** A string argument in UTF-8 with its NUL (the it module's ORBs transmit char data in UTF-8). */
    public RawGiop utf8String(final String s)
    {
        final byte[] text = s.getBytes(StandardCharsets.UTF_8);
        ulong(text.length + 1);
        ensure(text.length + 1);
        b.put(text).put((byte)0);
        return this;
    }

    /** @return the message, its size set. */
    public byte[] bytes()
    {
        final byte[] m = new byte[b.position()];
        b.flip().get(m);
        ByteBuffer.wrap(m).putInt(8, m.length - 12);
        return m;
    }

    private void ensure(final int more)
    {
        if (b.remaining() < more)
        {
            final ByteBuffer bigger = ByteBuffer.allocate(Math.max(b.capacity() * 2, b.position() + more));
            b.flip();
            bigger.put(b);
            b = bigger;
        }
    }

    /** The fields of a GIOP 1.2 Reply (big- or little-endian) that the tests look at. */
    public static final class Reply
    {
        public final int requestId;
        public final int status;
        /** The string result of a NO_EXCEPTION reply to a one-string operation (UTF-8), else null. */
        public final String result;
        /** A SYSTEM_EXCEPTION's repository id, minor code and completion status, else null, 0, 0. */
        public final String exceptionId;
        public final int minor;
        public final int completed;

        private Reply(final int requestId, final int status, final String result, final String exceptionId, final int minor,
            final int completed)
        {
            this.requestId = requestId;
            this.status = status;
            this.result = result;
            this.exceptionId = exceptionId;
            this.minor = minor;
            this.completed = completed;
        }

        @Override
        public String toString()
        {
            return "Reply{id=" + requestId + ", status=" + status + ", result=" + result + ", exception=" + exceptionId +
                ", minor=0x" + Integer.toHexString(minor) + ", completed=" + completed + '}';
        }
    }

    /**
     * @param reply a transport reply holding one GIOP 1.2 Reply.
     * @return its fields.
     * @throws IllegalArgumentException it is not a GIOP 1.2 Reply.
     */
    public static Reply parseReply(final ByteBuffer reply)
    {
        final ByteBuffer m = reply.slice();
        if (m.remaining() < 20 || m.get(0) != 'G' || m.get(5) != 2 || m.get(7) != REPLY)
        {
            throw new IllegalArgumentException("not a GIOP 1.2 Reply: " + m.remaining() + " bytes");
        }
        m.order((m.get(6) & 1) != 0 ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN);
        final int requestId = m.getInt(12);
        final int status = m.getInt(16);
        m.position(20);
        final int contexts = m.getInt();
        for (int i = 0; i < contexts; i++)
        {
            align(m, 4);
            m.getInt();
            final int n = m.getInt();
            m.position(m.position() + n);
        }
        if (m.remaining() > 0)
        {
            align(m, 8);
        }
        if (status == NO_EXCEPTION && m.remaining() >= 4)
        {
            return new Reply(requestId, status, readString(m, StandardCharsets.UTF_8), null, 0, 0);
        }
        if (status == SYSTEM_EXCEPTION)
        {
            final String id = readString(m, StandardCharsets.ISO_8859_1);
            align(m, 4);
            return new Reply(requestId, status, null, id, m.getInt(), m.getInt());
        }
        return new Reply(requestId, status, null, null, 0, 0);
    }

    private static String readString(final ByteBuffer m, final java.nio.charset.Charset charset)
    {
        align(m, 4);
        final int n = m.getInt();
        final byte[] text = new byte[n - 1];
        m.get(text);
        m.get();
        return new String(text, charset);
    }

    private static void align(final ByteBuffer m, final int boundary)
    {
        final int rest = m.position() % boundary;
        if (rest != 0)
        {
            m.position(m.position() + boundary - rest);
        }
    }
}
