package org.lightwire.atm;

import java.io.IOException;

/** The C shim could not be loaded on this machine; the message says why ({@link AtmLibrary}). */
public final class AtmLibraryUnavailableException extends IOException
{
    private static final long serialVersionUID = 1L;

    public AtmLibraryUnavailableException(final String message)
    {
        super(message);
    }
}
