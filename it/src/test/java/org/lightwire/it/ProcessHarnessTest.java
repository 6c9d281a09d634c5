package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class ProcessHarnessTest
{
    @Test
    void childThatExitsBeforeReadyIsReportedWithItsOutput()
    {
        final IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> ProcessHarness.start(TestServer.class, List.of(), List.of("--bogus"),
                ProcessHarness.DEFAULT_READY_TIMEOUT));
        assertTrue(e.getMessage().contains("exited with status 1"), e.getMessage());
        assertTrue(e.getMessage().contains("unexpected argument '--bogus'"), e.getMessage());
    }

    @Test
    void killEndsTheChildAtOnce() throws Exception
    {
        try (ProcessHarness server = ProcessHarness.startTestServer(Map.of()))
        {
            final ProcessHandle child = ProcessHandle.of(server.pid()).orElseThrow();
            server.kill();
            assertFalse(server.isAlive());
            assertFalse(child.isAlive());
        }
    }

    @Test
    void closeEndsTheChild() throws Exception
    {
        final ProcessHarness server = ProcessHarness.startTestServer(Map.of());
        final ProcessHandle child = ProcessHandle.of(server.pid()).orElseThrow();
        server.close();
        assertFalse(child.isAlive());
        server.close();
    }

    @Test
    void unknownObjectNameIsRejectedWithTheAnnouncedNames() throws Exception
    {
        try (ProcessHarness server = ProcessHarness.start(
            TestServer.class, List.of(), List.of(), Duration.ofSeconds(30)))
        {
            final IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> server.ior("nope"));
            assertTrue(e.getMessage().contains("echo"), e.getMessage());
        }
    }
}
