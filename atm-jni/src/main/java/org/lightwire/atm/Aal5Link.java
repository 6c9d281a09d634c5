package org.lightwire.atm;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.lightwire.transport.link.Link;

/**
 * A {@link Link} over one AAL5 virtual circuit of the Linux ATM socket API, as the paper ran
 * omniTransport (section 5: "implemented over the Linux ATM API"): each omniTransport packet is
 * one AAL5 SDU, with nothing around it, since the circuit itself names the connection.
 *
 * <p>A VC delivers in order ({@link #preservesOrder()} is true) but may lose SDUs, and AAL5's CRC
 * discards corrupt ones, which is what the engine's retransmission expects. One send gathers the
 * header and the payload into one SDU without copying when both are direct buffers. An SDU larger
 * than the receive buffer is dropped and counted ({@link #oversizedSdus()}); receive never throws
 * for what a peer sent, only for a released circuit or a closed link.
 *
 * <p>One thread sends and one receives at a time; {@link #close()} may come from any thread and
 * wakes a waiting receive, which then throws {@link ClosedChannelException}.
 */
public final class Aal5Link implements Link
{
    private static final int CLOSED = Integer.MIN_VALUE;

    private final int fd;
    private final int wakeFd;
    private final String circuit;
    private final AtmQos txQos;
    private final AtmQos rxQos;
    private final int maxPacketBytes;
    private final ByteBuffer sendStaging;
    private final ByteBuffer receiveStaging;
    /** Calls in progress, with the sign bit set once closed: the last one out closes the descriptors. */
    private final AtomicInteger users = new AtomicInteger();
    private volatile long sentSdus;
    private volatile long receivedSdus;
    private volatile long oversizedSdus;
    private volatile long sendsDropped;
    private volatile long sendsRetried;
    /** Times a send refused with ENOBUFS is tried again (after 0.1, 0.2, ... ms: 21 ms in all). */
    static final int SEND_RETRIES = 20;

    private Aal5Link(final int fd, final int wakeFd, final String circuit, final AtmQos txQos, final AtmQos rxQos, final int maxPacketBytes)
    {
        this.fd = fd;
        this.wakeFd = wakeFd;
        this.circuit = circuit;
        this.txQos = txQos;
        this.rxQos = rxQos;
        this.maxPacketBytes = maxPacketBytes;
        this.sendStaging = ByteBuffer.allocateDirect(txQos.maxSduBytes());
        this.receiveStaging = ByteBuffer.allocateDirect(rxQos.maxSduBytes());
    }

    /**
     * Opens the circuit: a PVC is connected at once; an SVC is signalled to its address (which
     * needs {@code atmsigd} and a switch, or a peer running one).
     *
     * @throws AtmLibraryUnavailableException the shim could not be loaded (the message says why).
     * @throws AtmUnsupportedException the kernel has no ATM support.
     * @throws QosRejectedException the QoS was refused, naming the parameter.
     * @throws AtmException any other failure, with the operation, the circuit and the errno.
     */
    public static Aal5Link open(final Aal5Config config) throws IOException
    {
        AtmLibrary.require();
        final boolean svc = config.pvc() == null;
        final String circuit = config.circuit();
        final AtmQos tx = config.txQos();
        final AtmQos rx = config.rxQos();
        final int fd = AtmNative.socket(svc);
        if (fd < 0)
        {
            throw AtmErrors.exception(AtmErrors.Operation.SOCKET, fd, circuit, tx, rx, -1);
        }
        boolean done = false;
        try
        {
            check(AtmErrors.Operation.SET_QOS, AtmNative.setQos(fd,
                tx.trafficClass().code(), tx.pcrCellsPerSecond(), tx.maxSduBytes(),
                rx.trafficClass().code(), rx.pcrCellsPerSecond(), rx.maxSduBytes()), circuit, tx, rx);
            if (svc)
            {
                check(AtmErrors.Operation.SET_SAP, AtmNative.setSap(fd, config.sap()), circuit, tx, rx);
                check(AtmErrors.Operation.CONNECT, AtmNative.connectSvc(fd, config.svcAddress()), circuit, tx, rx);
            }
            else
            {
                final PvcAddress pvc = config.pvc();
                checkReservation(fd, pvc.itf(), circuit, tx, rx);
                check(AtmErrors.Operation.CONNECT, AtmNative.connectPvc(fd, pvc.itf(), pvc.vpi(), pvc.vci()), circuit, tx, rx);
            }
            final Aal5Link link = adopt(fd, circuit, tx, rx, config.maxPacketBytes());
            done = true;
            return link;
        }
        finally
        {
            if (!done)
            {
                AtmNative.close(fd);
            }
        }
    }

    static Aal5Link adopt(final int fd, final String circuit, final AtmQos tx, final AtmQos rx, final int maxPacketBytes)
        throws AtmException
    {
        final int wakeFd = AtmNative.wakeFd();
        if (wakeFd < 0)
        {
            throw AtmErrors.exception(AtmErrors.Operation.SOCKET, wakeFd, circuit);
        }
        return new Aal5Link(fd, wakeFd, circuit, tx, rx, maxPacketBytes);
    }

    /** CBR reserves its PCR: one above the interface's link rate can never be honoured. */
    private static void checkReservation(final int fd, final int itf, final String circuit, final AtmQos tx, final AtmQos rx)
        throws QosRejectedException
    {
        if (tx.trafficClass() != TrafficClass.CBR)
        {
            return;
        }
        final int rate = AtmNative.linkRate(fd, itf);
        if (rate <= 0)
        {
            return; // no such interface or no rate: connect reports the former, the driver judges the latter
        }
        final String parameter = tx.pcrCellsPerSecond() > rate ? "tx.pcr" : rx.pcrCellsPerSecond() > rate ? "rx.pcr" : null;
        if (parameter != null)
        {
            throw new QosRejectedException(AtmErrors.Operation.SET_QOS, Errno.EINVAL, parameter, "cannot reserve CBR on ATM" +
                " circuit " + circuit + ": " + parameter + "=" + (parameter.startsWith("tx") ? tx : rx).pcrCellsPerSecond() +
                " cells/s exceeds interface " + itf + "'s link rate of " + rate + " cells/s; lower qos.pcr");
        }
    }

    private static void check(final AtmErrors.Operation operation, final int result, final String circuit, final AtmQos tx, final AtmQos rx)
        throws AtmException
    {
        if (result < 0)
        {
            throw AtmErrors.exception(operation, result, circuit, tx, rx, -1);
        }
    }

    @Override
    public void send(final ByteBuffer header, final ByteBuffer payload) throws IOException
    {
        enter();
        try
        {
            final int headerBytes = header.remaining();
            final int payloadBytes = payload == null ? 0 : payload.remaining();
            if (!(header.isDirect() && (payload == null || payload.isDirect())) && headerBytes + payloadBytes > sendStaging.capacity())
            {
                throw AtmErrors.exception(AtmErrors.Operation.SEND, -Errno.EMSGSIZE, circuit, txQos, rxQos, headerBytes + payloadBytes);
            }
            final int result = resend(headerBytes, payloadBytes, header, payload);
            if (result == -Errno.ENOBUFS || result == -Errno.EAGAIN)
            {
                // The circuit's transmit queue is full (atmtcp: its daemon has not caught up).
                // Local congestion, not loss on the medium: wait a little and try again; after
                // that the SDU is lost, as a datagram would be, and the engine retransmits it.
                int retried = result;
                for (int attempt = 1; attempt <= SEND_RETRIES && (retried == -Errno.ENOBUFS || retried == -Errno.EAGAIN); attempt++)
                {
                    sendsRetried++;
                    java.util.concurrent.locks.LockSupport.parkNanos(attempt * 100_000L);
                    retried = resend(headerBytes, payloadBytes, header, payload);
                }
                if (retried == -Errno.ENOBUFS || retried == -Errno.EAGAIN)
                {
                    sendsDropped++;
                    return;
                }
                if (retried < 0)
                {
                    throw AtmErrors.exception(AtmErrors.Operation.SEND, retried, circuit, txQos, rxQos, headerBytes + payloadBytes);
                }
                sentSdus++;
                return;
            }
            if (result < 0)
            {
                throw AtmErrors.exception(AtmErrors.Operation.SEND, result, circuit, txQos, rxQos, headerBytes + payloadBytes);
            }
            sentSdus++;
        }
        finally
        {
            exit();
        }
    }

    /** One native send of header and payload as one SDU; @return the count or -errno. */
    private int resend(final int headerBytes, final int payloadBytes, final ByteBuffer header, final ByteBuffer payload)
    {
        if (header.isDirect() && (payload == null || payload.isDirect()))
        {
            return AtmNative.send(fd, header, header.position(), headerBytes, payload, payload == null ? 0 : payload.position(), payloadBytes);
        }
        // A heap buffer has no stable address for the kernel: stage it in a direct one.
        sendStaging.clear();
        sendStaging.put(header.duplicate());
        if (payload != null)
        {
            sendStaging.put(payload.duplicate());
        }
        return AtmNative.send(fd, sendStaging, 0, sendStaging.position(), null, 0, 0);
    }

    @Override
    public int receive(final ByteBuffer dst, final long timeoutNs) throws IOException
    {
        enter();
        try
        {
            final long deadlineNs = System.nanoTime() + timeoutNs;
            long waitNs = timeoutNs;
            while (true)
            {
                final int timeoutMs = waitNs <= 0 ? 0 : (int)Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(waitNs + 999_999));
                final boolean direct = dst.isDirect();
                final int n = direct ?
                    AtmNative.recv(fd, wakeFd, dst, dst.position(), dst.remaining(), timeoutMs) :
                    AtmNative.recv(fd, wakeFd, receiveStaging, 0, Math.min(receiveStaging.capacity(), dst.remaining()), timeoutMs);
                if (n >= 0)
                {
                    if (direct)
                    {
                        dst.position(dst.position() + n);
                    }
                    else
                    {
                        dst.put(receiveStaging.duplicate().position(0).limit(n));
                    }
                    receivedSdus++;
                    return n;
                }
                if (n == -Errno.EMSGSIZE)
                {
                    oversizedSdus++; // larger than the caller's buffer: the peer's max SDU exceeds ours
                }
                else if (n == -Errno.ECANCELED)
                {
                    throw new ClosedChannelException();
                }
                else if (n != -Errno.EAGAIN && n != -Errno.EINTR)
                {
                    throw AtmErrors.exception(AtmErrors.Operation.RECEIVE, n, circuit, txQos, rxQos, -1);
                }
                waitNs = deadlineNs - System.nanoTime();
                if (timeoutNs == 0 || waitNs <= 0)
                {
                    return TIMEOUT;
                }
            }
        }
        finally
        {
            exit();
        }
    }

    @Override
    public int maxPacketBytes()
    {
        return maxPacketBytes;
    }

    /** @return true: an ATM virtual circuit delivers cells, and so SDUs, in order. */
    @Override
    public boolean preservesOrder()
    {
        return true;
    }

    /** Closes the circuit; a receive waiting on it returns at once with {@link ClosedChannelException}. */
    @Override
    public void close()
    {
        int state;
        do
        {
            state = users.get();
            if (state < 0)
            {
                return;
            }
        }
        while (!users.compareAndSet(state, state | CLOSED));
        AtmNative.wake(wakeFd);
        if (state == 0)
        {
            release();
        }
    }

    private void enter() throws ClosedChannelException
    {
        int state;
        do
        {
            state = users.get();
            if (state < 0)
            {
                throw new ClosedChannelException();
            }
        }
        while (!users.compareAndSet(state, state + 1));
    }

    private void exit()
    {
        if (users.decrementAndGet() == CLOSED)
        {
            release();
        }
    }

    /** Runs once, when closed and idle, so no descriptor is closed under a call that still uses it. */
    private void release()
    {
        AtmNative.close(fd);
        AtmNative.close(wakeFd);
    }

    /** @return SDUs sent. */
    public long sentSdus()
    {
        return sentSdus;
    }

    /** @return SDUs received and returned. */
    public long receivedSdus()
    {
        return receivedSdus;
    }

    /** @return SDUs received larger than the receive buffer, dropped. */
    /** @return SDUs not sent because the circuit's transmit queue was full (ENOBUFS): lost, and retransmitted by the engine. */
    public long sendsDropped()
    {
        return sendsDropped;
    }

    /** @return sends tried again because the transmit queue was full (ENOBUFS). */
    public long sendsRetried()
    {
        return sendsRetried;
    }

    public long oversizedSdus()
    {
        return oversizedSdus;
    }

    /** @return the circuit, {@code pvc 0.0.100} or {@code svc <address>}. */
    public String circuit()
    {
        return circuit;
    }

    @Override
    public String toString()
    {
        return "Aal5Link{" + circuit + ", tx=" + txQos + ", rx=" + rxQos + ", maxPacketBytes=" + maxPacketBytes +
            ", sentSdus=" + sentSdus + ", receivedSdus=" + receivedSdus + ", oversizedSdus=" + oversizedSdus + ", sendsRetried=" + sendsRetried + ", sendsDropped=" + sendsDropped + "}";
    }
}
