package org.lightwire.etf;

import java.nio.ByteBuffer;

import org.lightwire.etf.giop.FragmentJoiner;
import org.lightwire.etf.giop.GiopMessage;
import org.lightwire.etf.giop.InboundMessages;
import org.omg.ETF.BufferHolder;

/**
 * What every Lightwire and ROMIOP ETF connection shares: JacORB writes a GIOP message in one to
 * three {@link #write}s and ends it with {@link #flush} (the only message boundary, see
 * {@code docs/notes/jacorb-etf.md} section 3); the bytes are collected here, fragments are joined
 * ({@link FragmentJoiner}), and each whole message goes to {@link #onMessage} on the flushing
 * thread. Whole messages for JacORB's reader are queued in {@link #inbound}, which presents them
 * as the byte stream {@link #read} must deliver. No transport of ours carries bidirectional GIOP,
 * and none uses JacORB's socket timeout.
 */
public abstract class MessageConnection extends org.jacorb.orb.etf.ConnectionBase
{
    /** Whole messages for JacORB's reader. */
    protected final InboundMessages inbound = new InboundMessages();
    private final FragmentJoiner joiner = new FragmentJoiner();
    private final Object outLock = new Object();
    private byte[] outBuffer = new byte[1024];
    private int outLength;
    /**
     * The message being written when its GIOP header announced its size: each message gets an
     * array of exactly its size, written once and handed on by flush() without a copy (the
     * transport keeps it until the call ends, so it cannot be a reused buffer).
     */
    private byte[] exact;
    /**
     * Or the message being written into a buffer the subclass gave ({@link #messageBuffer}),
     * from {@link #directStart}; {@link #directLength} is the length its header announced.
     */
    private ByteBuffer direct;
    private int directStart;
    private int directLength;
    private int timeoutMs;

    @Override
    public final void write(final boolean isFirst, final boolean isLast, final byte[] data, final int offset, final int length,
        final long timeOut)
    {
        synchronized (outLock)
        {
            if (outLength == 0 && exact == null && direct == null)
            {
                startMessage(data, offset, length);
            }
            if (direct != null)
            {
                if (outLength + length <= directLength)
                {
                    direct.put(directStart + outLength, data, offset, length);
                    outLength += length;
                    return;
                }
                // More than the header announced: go on in the growing buffer, which flush copies.
                ensureOutBuffer(outLength);
                direct.get(directStart, outBuffer, 0, outLength);
                abandonDirect();
            }
            if (exact != null)
            {
                if (outLength + length <= exact.length)
                {
                    System.arraycopy(data, offset, exact, outLength, length);
                    outLength += length;
                    return;
                }
                // More than the header announced: go on in the growing buffer, which flush copies.
                ensureOutBuffer(outLength);
                System.arraycopy(exact, 0, outBuffer, 0, outLength);
                exact = null;
            }
            ensureOutBuffer(outLength + length);
            System.arraycopy(data, offset, outBuffer, outLength, length);
            outLength += length;
        }
    }

    @Override
    public final void flush()
    {
        final byte[] message;
        synchronized (outLock)
        {
            if (outLength == 0)
            {
                return;
            }
            if (direct != null)
            {
                if (outLength == directLength)
                {
                    // Written where the subclass wants it: handed on without a copy.
                    final ByteBuffer whole = direct.limit(directStart + outLength).position(directStart);
                    direct = null;
                    outLength = 0;
                    onMessage(whole);
                    return;
                }
                // Fewer bytes than the header announced: on as an ordinary message.
                ensureOutBuffer(outLength);
                direct.get(directStart, outBuffer, 0, outLength);
                abandonDirect();
            }
            final byte[] flushed;
            if (exact != null && outLength == exact.length)
            {
                // The message was written straight into an array of its own size: no copy.
                flushed = exact;
            }
            else
            {
                if (exact != null)
                {
                    ensureOutBuffer(outLength);
                    System.arraycopy(exact, 0, outBuffer, 0, outLength);
                }
                flushed = new byte[outLength];
                System.arraycopy(outBuffer, 0, flushed, 0, outLength);
            }
            exact = null;
            outLength = 0;
            message = joiner.offer(flushed);
        }
        if (message != null)
        {
            onMessage(message);
        }
    }

    /**
     * Begins a message: a GIOP 1.2 Request in one piece of at least {@link #messageBufferMinBytes()}
     * goes where {@link #messageBuffer} says, if it says; any message whose header announces a
     * sane size gets an array of that size; anything else goes to the growing buffer.
     */
    private void startMessage(final byte[] data, final int offset, final int length)
    {
        if (length < GiopMessage.HEADER_LENGTH)
        {
            return;
        }
        final byte[] header = java.util.Arrays.copyOfRange(data, offset, offset + GiopMessage.HEADER_LENGTH);
        if (!GiopMessage.isGiop(header, header.length))
        {
            return;
        }
        final long announced = GiopMessage.HEADER_LENGTH + (GiopMessage.bodySize(header) & 0xFFFF_FFFFL);
        if (announced < length || announced > maxMessageBytes())
        {
            return;
        }
        final int total = (int)announced;
        if (total >= messageBufferMinBytes() && GiopMessage.type(header) == GiopMessage.REQUEST && GiopMessage.minor(header) == 2 &&
            !GiopMessage.moreFragments(header))
        {
            final ByteBuffer b = messageBuffer(total);
            if (b != null)
            {
                direct = b;
                directStart = b.position();
                directLength = total;
                return;
            }
        }
        exact = new byte[total];
    }

    private void abandonDirect()
    {
        direct = null;
        messageBufferAbandoned();
    }

    /**
     * @return the smallest Request that {@link #messageBuffer} is asked for; below it a copy
     *     costs less than the bookkeeping. Integer.MAX_VALUE (the default) never asks.
     */
    protected int messageBufferMinBytes()
    {
        return Integer.MAX_VALUE;
    }

    /**
     * Where JacORB's bytes of the GIOP 1.2 Request now begun, {@code length} bytes in one piece,
     * are written; called under JacORB's write lock, before its first byte.
     *
     * @return a buffer with at least {@code length} bytes from its position, which the
     *     subclass does not touch until {@link #onMessage(ByteBuffer)} or
     *     {@link #messageBufferAbandoned()}; or null for an array of its own.
     */
    protected ByteBuffer messageBuffer(final int length)
    {
        return null;
    }

    /**
     * The message begun in the buffer {@link #messageBuffer} gave came out another length than
     * its header announced, or was discarded: it goes on as an ordinary message (if at all), and
     * the buffer is the subclass's again.
     */
    protected void messageBufferAbandoned()
    {
    }

    /**
     * One whole Request written into the buffer {@link #messageBuffer} gave, from its position
     * to its limit, on the flushing thread and under the flush's lock.
     */
    protected void onMessage(final ByteBuffer message)
    {
        throw new IllegalStateException(this + " gave a message buffer but takes no message in it");
    }

    /** @return the largest message a header may announce before it gets an array of its size. */
    protected int maxMessageBytes()
    {
        return Integer.MAX_VALUE - 64;
    }

    private void ensureOutBuffer(final int bytes)
    {
        if (outBuffer.length < bytes)
        {
            final byte[] bigger = new byte[Math.max(outBuffer.length * 2, bytes)];
            System.arraycopy(outBuffer, 0, bigger, 0, outLength);
            outBuffer = bigger;
        }
    }

    /** One whole GIOP message JacORB flushed (fragments joined), on the flushing thread. */
    protected abstract void onMessage(byte[] message);

    /** Forgets a partly written message and any fragments: for a (re)connect. */
    protected final void clearOutgoing()
    {
        synchronized (outLock)
        {
            outLength = 0;
            exact = null;
            if (direct != null)
            {
                abandonDirect();
            }
            joiner.clear();
        }
    }

    @Override
    public int read(final BufferHolder data, final int offset, final int minLength, final int maxLength, final long timeOut)
    {
        return inbound.read(data.value, offset, minLength, maxLength);
    }

    @Override
    public boolean is_data_available()
    {
        return inbound.hasData();
    }

    /** No Lightwire transport carries requests from server to client. */
    @Override
    public boolean supports_callback()
    {
        return false;
    }

    @Override
    protected final synchronized void setTimeout(final int timeout)
    {
        timeoutMs = timeout;
    }

    @Override
    protected final synchronized int getTimeout()
    {
        return timeoutMs;
    }
}
