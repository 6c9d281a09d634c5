package org.lightwire.atm;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Loads the C shim ({@code liblightwire-atm.so}) that the build packs into this module's jar
 * under {@value #RESOURCE}, by copying it to a temporary file and {@link System#load loading} it
 * from there. Loading is tried once, on first use; when it fails, {@link #unavailableReason()}
 * says why, in the form {@code "library unavailable: <why>"}.
 *
 * <p>The system property {@value #LIBRARY_PROPERTY} names a {@code .so} to load instead (for
 * development); the build skips the shim, and says so, where gcc or the ATM headers are missing.
 */
public final class AtmLibrary
{
    /** Where the build puts the shim inside the jar. */
    public static final String RESOURCE = "META-INF/native/linux-x86_64/liblightwire-atm.so";

    /** System property: a path to a shim to load instead of the packaged one. */
    public static final String LIBRARY_PROPERTY = "lightwire.atm.library";

    private static final String UNAVAILABLE = loadOnce();

    private AtmLibrary()
    {
    }

    /** @return true when the shim is loaded and the ATM classes can be used. */
    public static boolean isAvailable()
    {
        return UNAVAILABLE == null;
    }

    /** @return {@code "library unavailable: <why>"}, or null when the library is loaded. */
    public static String unavailableReason()
    {
        return UNAVAILABLE;
    }

    /**
     * @throws AtmLibraryUnavailableException when the shim could not be loaded, saying why.
     */
    public static void require() throws AtmLibraryUnavailableException
    {
        if (UNAVAILABLE != null)
        {
            throw new AtmLibraryUnavailableException(UNAVAILABLE);
        }
    }

    private static String loadOnce()
    {
        final String override = System.getProperty(LIBRARY_PROPERTY);
        if (override != null && !override.isBlank())
        {
            return loadFile(Path.of(override), LIBRARY_PROPERTY + "=" + override);
        }
        return load(AtmLibrary.class.getClassLoader(), RESOURCE);
    }

    /**
     * Loads a shim from a class-path resource: the mechanism behind this class, visible for tests.
     *
     * @return null when loaded, else {@code "library unavailable: <why>"}.
     */
    static String load(final ClassLoader loader, final String resource)
    {
        final String os = System.getProperty("os.name", "?");
        final String arch = System.getProperty("os.arch", "?").toLowerCase(Locale.ROOT);
        if (!os.startsWith("Linux"))
        {
            return "library unavailable: the ATM shim uses the Linux ATM socket API and this is " + os;
        }
        if (!arch.equals("amd64") && !arch.equals("x86_64"))
        {
            return "library unavailable: the jar carries a build for linux-x86_64 only, not linux-" + arch;
        }
        try (InputStream in = loader.getResourceAsStream(resource))
        {
            if (in == null)
            {
                return "library unavailable: " + resource + " is not on the class path; the build skipped the" +
                    " native part (its [atm-jni] message says why: gcc, <linux/atm.h> from linux-libc-dev or" +
                    " <atm.h> from libatm1-dev missing)";
            }
            final Path file = Files.createTempFile("liblightwire-atm-", ".so");
            try
            {
                Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
                return loadFile(file, resource);
            }
            finally
            {
                // Once loaded the mapping keeps the code; the file itself is no longer needed.
                Files.deleteIfExists(file);
            }
        }
        catch (final IOException e)
        {
            return "library unavailable: could not extract " + resource + " to a temporary file (" + e.getMessage() +
                "); check java.io.tmpdir=" + System.getProperty("java.io.tmpdir") + " is writable and not noexec";
        }
    }

    private static String loadFile(final Path file, final String origin)
    {
        try
        {
            System.load(file.toAbsolutePath().toString());
            return null;
        }
        catch (final UnsatisfiedLinkError | SecurityException e)
        {
            return "library unavailable: loading " + origin + " failed: " + e.getMessage();
        }
    }
}
