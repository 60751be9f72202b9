using Akka.Actor;
using Akka.Configuration;
using Akka.Remote.Transport;
using Google.Protobuf;
using Xunit.Abstractions;

namespace WebSocketCodec.Akka.Tests.Allocation;

/// <summary>What a PDU costs in allocations between Write on one node and the read listener on the other: only what
/// Akka's API forces (the inbound ByteString, its array, and the InboundPayload event).</summary>
public sealed class TransportAllocationTests(ITestOutputHelper output) : IAsyncLifetime
{
    private const int PayloadLength = 100;
    private readonly ActorSystem _system = ActorSystem.Create("alloc", ConfigurationFactory.ParseString("akka.loglevel = WARNING"));
    private WebSocketTransport _server = null!;
    private WebSocketTransport _client = null!;

    public Task InitializeAsync()
    {
        Config section = ConfigurationFactory.ParseString("""
            hostname = "127.0.0.1"
            port = 0
            keep-alive-interval = 0 s
            """);
        _server = new WebSocketTransport(_system, section);
        _client = new WebSocketTransport(_system, section);
        return Task.CompletedTask;
    }

    public async Task DisposeAsync()
    {
        await _client.Shutdown();
        await _server.Shutdown();
        await _system.Terminate();
    }

    [Fact]
    public async Task A_pdu_allocates_nothing_beyond_the_inbound_ByteString_and_event()
    {
        var inbound = new TaskCompletionSource<AssociationHandle>(TaskCreationOptions.RunContinuationsAsynchronously);
        (Address serverAddress, TaskCompletionSource<IAssociationEventListener> serverListener) = await _server.Listen();
        (_, TaskCompletionSource<IAssociationEventListener> clientListener) = await _client.Listen();
        serverListener.SetResult(new AssociationListener(inbound));
        clientListener.SetResult(new AssociationListener(new TaskCompletionSource<AssociationHandle>()));

        AssociationHandle outbound = await _client.Associate(serverAddress);
        outbound.ReadHandlerSource.SetResult(new CountingListener());
        AssociationHandle accepted = await inbound.Task.WaitAsync(TimeSpan.FromSeconds(10));
        var counter = new CountingListener();
        accepted.ReadHandlerSource.SetResult(counter);
        ByteString payload = ByteString.CopyFrom(new byte[PayloadLength]);

        Send(outbound, payload, counter, 20_000); // warm-up: tiers, pools, pipe segments
        long forced = ForcedPerMessage();
        long before = GC.GetTotalAllocatedBytes(precise: true);
        const int Messages = 50_000;
        Send(outbound, payload, counter, Messages);
        long perMessage = (GC.GetTotalAllocatedBytes(precise: true) - before) / Messages;

        output.WriteLine($"{perMessage} bytes allocated per {PayloadLength}-byte PDU, {forced} of them forced by ByteString and InboundPayload");
        Assert.True(perMessage - forced <= 2, $"{perMessage - forced} bytes per PDU beyond the {forced} Akka's API forces");
    }

    /// <summary>Writes <paramref name="count"/> PDUs in bursts of <see cref="Burst"/> (the steady state of Akka's
    /// endpoint writer with a window of messages in flight), each burst once the one before arrived.</summary>
    private static void Send(AssociationHandle handle, ByteString payload, CountingListener counter, int count)
    {
        long deadline = Environment.TickCount64 + 30_000;
        for (int sent = 0; sent < count; sent += Burst)
        {
            long target = counter.Count + Burst;
            for (int i = 0; i < Burst; i++)
            {
                Assert.True(handle.Write(payload), "a burst far below the high water mark was refused");
            }

            SpinWait spin = default;
            while (counter.Count < target)
            {
                spin.SpinOnce(); // no allocating waits inside the measured window
                if (Environment.TickCount64 > deadline)
                {
                    Assert.Fail($"{target - counter.Count} PDUs did not arrive within 30 s");
                }
            }
        }
    }

    private const int Burst = 100;

    /// <summary>What Akka's API makes the reading side allocate for one PDU, measured on this thread.</summary>
    private static long ForcedPerMessage()
    {
        Span<byte> bytes = stackalloc byte[PayloadLength];
        long before = GC.GetAllocatedBytesForCurrentThread();
        _ = new InboundPayload(ByteString.CopyFrom(bytes));
        return GC.GetAllocatedBytesForCurrentThread() - before;
    }

    private sealed class AssociationListener(TaskCompletionSource<AssociationHandle> inbound) : IAssociationEventListener
    {
        public void Notify(IAssociationEvent ev)
        {
            if (ev is InboundAssociation association)
            {
                inbound.TrySetResult(association.Association);
            }
        }
    }

    private sealed class CountingListener : IHandleEventListener
    {
        private long _count;

        public long Count => Interlocked.Read(ref _count);

        public void Notify(IHandleEvent ev)
        {
            if (ev is InboundPayload)
            {
                Interlocked.Increment(ref _count);
            }
        }
    }
}
