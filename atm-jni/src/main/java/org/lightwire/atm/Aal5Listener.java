package org.lightwire.atm;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeUnit;

/**
 * Accepts AAL5 SVCs at a local ATM address (needs {@code atmsigd}); each accepted call becomes an
 * {@link Aal5Link} for one server connection. PVCs need no listener: both ends
 * {@link Aal5Link#open open} theirs.
 */
public final class Aal5Listener implements Closeable
{
    private final int fd;
    private final int wakeFd;
    private final Aal5Config config;
    private volatile boolean closed;

    private Aal5Listener(final int fd, final int wakeFd, final Aal5Config config)
    {
        this.fd = fd;
        this.wakeFd = wakeFd;
        this.config = config;
    }

    /**
     * @param config an SVC configuration: its address is the local one to listen at.
     * @throws IllegalArgumentException for a PVC configuration.
     * @throws IOException as {@link Aal5Link#open} does.
     */
    public static Aal5Listener listen(final Aal5Config config, final int backlog) throws IOException
    {
        if (config.svcAddress() == null)
        {
            throw new IllegalArgumentException("Aal5Listener needs an SVC address (" + Aal5Config.ADDRESS +
                "); a PVC (" + config.pvc() + ") is opened at both ends with Aal5Link.open");
        }
        AtmLibrary.require();
        final String circuit = config.circuit();
        final AtmQos tx = config.txQos();
        final AtmQos rx = config.rxQos();
        final int fd = AtmNative.socket(true);
        if (fd < 0)
        {
            throw AtmErrors.exception(AtmErrors.Operation.SOCKET, fd, circuit, tx, rx, -1);
        }
        int wakeFd = -1;
        try
        {
            check(AtmErrors.Operation.SET_QOS, AtmNative.setQos(fd, tx.trafficClass().code(), tx.pcrCellsPerSecond(),
                tx.maxSduBytes(), rx.trafficClass().code(), rx.pcrCellsPerSecond(), rx.maxSduBytes()), config);
            check(AtmErrors.Operation.SET_SAP, AtmNative.setSap(fd, config.sap()), config);
            check(AtmErrors.Operation.BIND, AtmNative.bindSvc(fd, config.svcAddress()), config);
            check(AtmErrors.Operation.LISTEN, AtmNative.listen(fd, backlog), config);
            wakeFd = AtmNative.wakeFd();
            check(AtmErrors.Operation.SOCKET, wakeFd, config);
            return new Aal5Listener(fd, wakeFd, config);
        }
        catch (final IOException | RuntimeException e)
        {
            AtmNative.close(fd);
            throw e;
        }
    }

    private static void check(final AtmErrors.Operation operation, final int result, final Aal5Config config) throws AtmException
    {
        if (result < 0)
        {
            throw AtmErrors.exception(operation, result, config.circuit(), config.txQos(), config.rxQos(), -1);
        }
    }

    /**
     * @return the next incoming circuit, or null when {@code timeoutNs} passed first.
     * @throws ClosedChannelException the listener was closed.
     */
    public Aal5Link accept(final long timeoutNs) throws IOException
    {
        if (closed)
        {
            throw new ClosedChannelException();
        }
        final int timeoutMs = (int)Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(Math.max(0, timeoutNs) + 999_999));
        final int child = AtmNative.accept(fd, wakeFd, timeoutNs == 0 ? 0 : timeoutMs);
        if (child == -Errno.EAGAIN)
        {
            return null;
        }
        if (child == -Errno.ECANCELED)
        {
            throw new ClosedChannelException();
        }
        check(AtmErrors.Operation.ACCEPT, child, config);
        return Aal5Link.adopt(child, "svc accepted at " + config.svcAddress(), config.txQos(), config.rxQos(), config.maxPacketBytes());
    }

    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            AtmNative.wake(wakeFd);
            AtmNative.close(fd);
            AtmNative.close(wakeFd);
        }
    }
}
