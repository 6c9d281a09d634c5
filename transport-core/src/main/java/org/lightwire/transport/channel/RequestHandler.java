package org.lightwire.transport.channel;

/**
 * The server application: given each request as it arrives whole, in the order of its
 * connection's calls.
 */
@FunctionalInterface
public interface RequestHandler
{
    /**
     * @param call the request; an exactly-once call must be answered with {@link ServerCall#reply}
     *             exactly once, from this thread or any other.
     */
    void onRequest(ServerCall call);

    /**
     * The connection named {@code connection} (as {@link ServerCall#connection()} names it) is
     * closed: idle too long, a zombie, or the server stopped. No request comes from it again,
     * and a reply to a call still held for it goes nowhere. Called on the server's threads; the
     * default does nothing.
     */
    default void onConnectionClosed(final String connection, final String reason)
    {
    }

    /**
     * @return true when the application reads each connection on a thread of its own
     *     ({@link #onConnectionOpened}); the server then gives each connection a socket of its
     *     own, where its UDP front-end allows it. Asked once, when the server starts.
     */
    default boolean readsConnections()
    {
        return false;
    }

    /**
     * A connection was opened with a socket of its own, before the client learns that it is
     * open: from now on the application must call {@link ConnectionReader#readOnce()} in a loop
     * on a thread of its own, and the connection's requests reach {@link #onRequest} on that
     * thread. Called on the server's receive thread when {@link #readsConnections()} is true.
     * If this throws, the connection is served through the server's shared socket instead.
     */
    default void onConnectionOpened(final String connection, final ConnectionReader reader)
    {
    }
}
