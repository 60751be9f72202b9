using System.Net.Sockets;
using Akka.Actor;
using Akka.Remote.Transport;
using Akka.TestKit;
using Google.Protobuf;

namespace WebSocketCodec.Akka.Tests.Transport;

/// <summary>
/// Akka's transport contract (what Akka.Remote's GenericTransportSpec checks, and what the endpoint reader and writer
/// rely on), on <see cref="WebSocketTransport"/> instances created directly and driven with test probes.
/// </summary>
public sealed class TransportContractTests : global::Akka.TestKit.Xunit2.TestKit, IAsyncLifetime
{
    private static readonly TimeSpan Wait = TimeSpan.FromSeconds(15);
    private static readonly TimeSpan Quiet = TimeSpan.FromMilliseconds(300);
    private readonly TransportHarness _transports;

    public TransportContractTests()
        : base("akka.loglevel = WARNING")
    {
        _transports = new TransportHarness(Sys);
    }

    public Task InitializeAsync() => Task.CompletedTask;

    Task IAsyncLifetime.DisposeAsync() => _transports.DisposeAsync().AsTask();

    [Fact]
    public async Task Listen_returns_a_ws_address_with_the_bound_port_and_a_listener_promise()
    {
        WebSocketTransport transport = _transports.Create();

        (Address address, TaskCompletionSource<IAssociationEventListener> promise) = await transport.Listen().WaitAsync(Wait);

        Assert.Equal("ws", transport.SchemeIdentifier);
        Assert.Equal("ws", address.Protocol);
        Assert.Equal(Sys.Name, address.System);
        Assert.Equal("127.0.0.1", address.Host);
        Assert.True(address.Port > 0);
        Assert.False(promise.Task.IsCompleted); // Akka completes it
        using var client = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        await client.ConnectAsync("127.0.0.1", address.Port!.Value).WaitAsync(Wait); // bound to that port
        promise.SetResult(new ActorAssociationEventListener(TestActor));
    }

    [Fact]
    public async Task Associate_succeeds_and_the_other_side_sees_the_inbound_association_once_its_listener_is_set()
    {
        WebSocketTransport a = _transports.Create();
        WebSocketTransport b = _transports.Create();
        await TransportHarness.ListenAsync(a, TestActor);
        (Address addressB, TaskCompletionSource<IAssociationEventListener> promiseB) = await b.Listen().WaitAsync(Wait);
        TestProbe inboundB = CreateTestProbe();

        AssociationHandle handleA = await a.Associate(addressB).WaitAsync(Wait);

        Assert.Equal(addressB, handleA.RemoteAddress);
        inboundB.ExpectNoMsg(Quiet); // nobody to announce it to yet
        promiseB.SetResult(new ActorAssociationEventListener(inboundB));
        InboundAssociation inbound = inboundB.ExpectMsg<InboundAssociation>(Wait);
        Assert.Equal(addressB, inbound.Association.LocalAddress);
        Assert.Equal("127.0.0.1", inbound.Association.RemoteAddress.Host);
        ExpectNoMsg(Quiet); // A announces nothing: its association is outbound
    }

    [Fact]
    public async Task Associating_with_a_port_nobody_listens_on_fails_with_InvalidAssociationException()
    {
        WebSocketTransport a = _transports.Create();
        await TransportHarness.ListenAsync(a, TestActor);

        await Assert.ThrowsAsync<InvalidAssociationException>(
            () => a.Associate(new Address("ws", "nobody", "127.0.0.1", RawServers.ClosedPort())).WaitAsync(Wait));
    }

    [Fact]
    public async Task Associating_with_a_server_that_never_answers_fails_with_InvalidAssociationException_after_the_connection_timeout()
    {
        using var stop = new CancellationTokenSource();
        int port = RawServers.Silent(stop.Token);
        WebSocketTransport a = _transports.Create("connection-timeout = 1 s");
        await TransportHarness.ListenAsync(a, TestActor);

        InvalidAssociationException error = await Assert.ThrowsAsync<InvalidAssociationException>(
            () => a.Associate(new Address("ws", "silent", "127.0.0.1", port)).WaitAsync(Wait));

        Assert.Contains("connection-timeout", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Associating_with_a_plain_http_server_that_answers_404_fails_with_InvalidAssociationException()
    {
        using var stop = new CancellationTokenSource();
        int port = RawServers.PlainHttp404(stop.Token);
        WebSocketTransport a = _transports.Create();
        await TransportHarness.ListenAsync(a, TestActor);

        await Assert.ThrowsAsync<InvalidAssociationException>(
            () => a.Associate(new Address("ws", Sys.Name, "127.0.0.1", port)).WaitAsync(Wait));
        await stop.CancelAsync();
    }

    [Fact]
    public async Task Associating_with_a_system_name_the_listener_does_not_serve_fails_with_InvalidAssociationException()
    {
        WebSocketTransport a = _transports.Create();
        WebSocketTransport b = _transports.Create();
        await TransportHarness.ListenAsync(a, TestActor);
        Address addressB = await TransportHarness.ListenAsync(b, TestActor);

        await Assert.ThrowsAsync<InvalidAssociationException>(
            () => a.Associate(addressB.WithSystem("NotThisOne")).WaitAsync(Wait));
        ExpectNoMsg(Quiet); // and B announced nothing
    }

    [Fact]
    public async Task Payloads_arrive_in_order_as_InboundPayload_with_the_same_bytes_both_ways()
    {
        (AssociationHandle handleA, AssociationHandle handleB, TestProbe readerA, TestProbe readerB) = await AssociatedPairAsync();
        const int Count = 300;

        for (int i = 0; i < Count; i++)
        {
            ByteString toB = TransportHarness.Numbered(i, 4 + (i * 397 % 20000));
            ByteString toA = TransportHarness.Numbered(-i, 4 + (i * 131 % 3000));
            await Eventually.True(() => handleA.Write(toB), Wait); // false (above the high water mark) is retried, as Akka does
            await Eventually.True(() => handleB.Write(toA), Wait);
        }

        for (int i = 0; i < Count; i++)
        {
            Assert.Equal(TransportHarness.Numbered(i, 4 + (i * 397 % 20000)), readerB.ExpectMsg<InboundPayload>(Wait).Payload);
            Assert.Equal(TransportHarness.Numbered(-i, 4 + (i * 131 % 3000)), readerA.ExpectMsg<InboundPayload>(Wait).Payload);
        }

        readerA.ExpectNoMsg(Quiet);
        readerB.ExpectNoMsg(TimeSpan.Zero);
    }

    [Fact]
    public async Task Disassociate_reaches_the_other_side_as_exactly_one_Disassociated_Shutdown_and_twice_is_harmless()
    {
        (AssociationHandle handleA, AssociationHandle handleB, TestProbe readerA, TestProbe readerB) = await AssociatedPairAsync();

#pragma warning disable CS0618 // Disassociate() without a reason: the SPI method Akka calls
        handleA.Disassociate();
        handleA.Disassociate();
#pragma warning restore CS0618

        Assert.Equal(DisassociateInfo.Shutdown, TransportHarness.InfoOf(readerB.ExpectMsg<Disassociated>(Wait)));
        Assert.Equal(DisassociateInfo.Shutdown, TransportHarness.InfoOf(readerA.ExpectMsg<Disassociated>(Wait)));
#pragma warning disable CS0618
        handleB.Disassociate(); // after the end: nothing more happens
        handleA.Disassociate();
#pragma warning restore CS0618
        readerA.ExpectNoMsg(Quiet);
        readerB.ExpectNoMsg(TimeSpan.Zero);
        Assert.False(handleA.Write(TransportHarness.Numbered(1, 10))); // writes after the close are refused
        Assert.False(handleB.Write(TransportHarness.Numbered(2, 10)));
    }

    [Fact]
    public async Task A_read_listener_registered_after_the_association_closed_gets_the_held_payloads_then_one_Disassociated()
    {
        WebSocketTransport a = _transports.Create();
        WebSocketTransport b = _transports.Create("close-timeout = 2 s");
        (Address addressB, AssociationHandle handleA, AssociationHandle handleB) = await AssociateAsync(a, b);
        TestProbe readerA = CreateTestProbe();
        TestProbe readerB = CreateTestProbe();
        TransportHarness.Read(handleB, readerB);

        for (int i = 0; i < 3; i++)
        {
            Assert.True(handleB.Write(TransportHarness.Numbered(i, 100)));
        }

#pragma warning disable CS0618
        handleB.Disassociate();
#pragma warning restore CS0618
        // B's side ends: A's reads wait for its listener, so A does not read B's Close yet and B's close timeout runs out
        readerB.ExpectMsg<Disassociated>(Wait);
        TransportHarness.Read(handleA, readerA);

        for (int i = 0; i < 3; i++)
        {
            Assert.Equal(TransportHarness.Numbered(i, 100), readerA.ExpectMsg<InboundPayload>(Wait).Payload);
        }

        readerA.ExpectMsg<Disassociated>(Wait);
        readerA.ExpectNoMsg(Quiet);
    }

    [Fact]
    public async Task A_read_listener_registered_after_the_websocket_ended_gets_exactly_one_Disassociated()
    {
        WebSocketTransport a = _transports.Create();
        WebSocketTransport b = _transports.Create();
        (Address addressB, AssociationHandle handleA, AssociationHandle handleB) = await AssociateAsync(a, b);
        TestProbe readerB = CreateTestProbe();
        TransportHarness.Read(handleB, readerB);

#pragma warning disable CS0618
        handleB.Disassociate(); // nothing but the Close: A reads it, answers, and its websocket ends with no listener
#pragma warning restore CS0618

        Assert.Equal(DisassociateInfo.Shutdown, TransportHarness.InfoOf(readerB.ExpectMsg<Disassociated>(Wait))); // A answered
        Assert.False(handleA.Write(TransportHarness.Numbered(1, 10))); // A's side has ended too
        TestProbe readerA = CreateTestProbe();
        TransportHarness.Read(handleA, readerA);
        Assert.Equal(DisassociateInfo.Shutdown, TransportHarness.InfoOf(readerA.ExpectMsg<Disassociated>(Wait)));
        readerA.ExpectNoMsg(Quiet);
    }

    [Fact]
    public async Task Inbound_data_that_arrives_before_the_read_listener_is_registered_is_held_not_dropped()
    {
        WebSocketTransport a = _transports.Create();
        WebSocketTransport b = _transports.Create();
        (Address addressB, AssociationHandle handleA, AssociationHandle handleB) = await AssociateAsync(a, b);
        const int Count = 2000; // 2 MB: more than Kestrel's input pipe holds before it pauses, so TCP holds the rest

        for (int i = 0; i < Count; i++)
        {
            ByteString payload = TransportHarness.Numbered(i, 1000);
            await Eventually.True(() => handleA.Write(payload), Wait);
        }

        TestProbe readerB = CreateTestProbe();
        TransportHarness.Read(handleB, readerB);

        for (int i = 0; i < Count; i++)
        {
            Assert.Equal(i, TransportHarness.SequenceOf(readerB.ExpectMsg<InboundPayload>(Wait).Payload));
        }

        readerB.ExpectNoMsg(Quiet);
    }

    [Fact]
    public async Task Shutdown_closes_the_associations_and_unbinds()
    {
        WebSocketTransport a = _transports.Create();
        WebSocketTransport b = _transports.Create();
        (Address addressB, AssociationHandle handleA, AssociationHandle handleB) = await AssociateAsync(a, b);
        TestProbe readerA = CreateTestProbe();
        TestProbe readerB = CreateTestProbe();
        TransportHarness.Read(handleA, readerA);
        TransportHarness.Read(handleB, readerB);

        Assert.True(await b.Shutdown().WaitAsync(Wait));

        Assert.Equal(DisassociateInfo.Shutdown, TransportHarness.InfoOf(readerA.ExpectMsg<Disassociated>(Wait))); // 1001 is a clean close
        readerB.ExpectMsg<Disassociated>(Wait);
        Assert.False(handleA.Write(TransportHarness.Numbered(1, 10)));
        WebSocketTransport c = _transports.Create();
        await TransportHarness.ListenAsync(c, TestActor);
        await Assert.ThrowsAsync<InvalidAssociationException>(() => c.Associate(addressB).WaitAsync(Wait));
        Assert.True(await b.Shutdown().WaitAsync(Wait)); // twice is harmless
    }

    [Fact]
    public async Task Shutdown_of_the_associating_side_closes_its_outbound_associations()
    {
        (AssociationHandle handleA, _, TestProbe readerA, TestProbe readerB) = await AssociatedPairAsync(out WebSocketTransport a);

        Assert.True(await a.Shutdown().WaitAsync(Wait));

        Assert.Equal(DisassociateInfo.Shutdown, TransportHarness.InfoOf(readerB.ExpectMsg<Disassociated>(Wait)));
        readerA.ExpectMsg<Disassociated>(Wait);
        Assert.False(handleA.Write(TransportHarness.Numbered(1, 10)));
    }

    [Fact]
    public async Task Write_above_the_high_water_mark_returns_false_and_enqueues_nothing()
    {
        WebSocketTransport a = _transports.Create("outbound-high-water-mark = 64 KiB\noutbound-low-water-mark = 32 KiB");
        WebSocketTransport b = _transports.Create();
        (Address addressB, AssociationHandle handleA, AssociationHandle handleB) = await AssociateAsync(a, b); // B's reader: not yet
        var accepted = new List<int>();
        int sequence = 0;
        int refusedInARow = 0;

        // B reads nothing, so A's bytes pile up (B's pipe, both socket buffers) until A's unflushed bytes pass the
        // high water mark; every refused payload gets a sequence number of its own and is never written again.
        while (refusedInARow < 20 && sequence < 20_000)
        {
            if (handleA.Write(TransportHarness.Numbered(sequence, 16_000)))
            {
                accepted.Add(sequence);
                refusedInARow = 0;
            }
            else
            {
                refusedInARow++;
                await Task.Delay(10); // refused still after a while: the peer is not taking bytes
            }

            sequence++;
        }

        Assert.Equal(20, refusedInARow); // refused, and still refused 200 ms later
        TestProbe readerB = CreateTestProbe();
        TransportHarness.Read(handleB, readerB);

        foreach (int expected in accepted)
        {
            Assert.Equal(expected, TransportHarness.SequenceOf(readerB.ExpectMsg<InboundPayload>(Wait).Payload));
        }

        readerB.ExpectNoMsg(Quiet); // no refused payload went out
        await Eventually.True(() => handleA.Write(TransportHarness.Numbered(sequence, 10)), Wait); // writable again
        Assert.Equal(sequence, TransportHarness.SequenceOf(readerB.ExpectMsg<InboundPayload>(Wait).Payload));
    }

    [Fact]
    public async Task A_text_message_from_the_peer_ends_the_association_with_1003()
    {
        WebSocketTransport b = _transports.Create();
        TestProbe inboundB = CreateTestProbe();
        Address addressB = await TransportHarness.ListenAsync(b, inboundB);
        var uri = new Uri($"ws://127.0.0.1:{addressB.Port}/akka/{Uri.EscapeDataString(addressB.System)}");
        await using WebSocketCodec.MessageWebSocket peer = await WebSocketCodec.Pipelines.WebSocketClient.ConnectMessagesAsync(uri).WaitAsync(Wait);
        AssociationHandle handleB = inboundB.ExpectMsg<InboundAssociation>(Wait).Association;
        TestProbe readerB = CreateTestProbe();
        TransportHarness.Read(handleB, readerB);

        await peer.SendTextAsync("not an Akka PDU").AsTask().WaitAsync(Wait);

        WebSocketCloseInfo info = await peer.Completion.WaitAsync(Wait);
        Assert.Equal(CloseStatus.UnsupportedData, info.Status);
        Disassociated disassociated = readerB.FishForMessage<Disassociated>(_ => true, Wait);
        Assert.NotNull(disassociated);
        readerB.ExpectNoMsg(Quiet);
    }

    private Task<(AssociationHandle A, AssociationHandle B, TestProbe ReaderA, TestProbe ReaderB)> AssociatedPairAsync() =>
        AssociatedPairAsync(out _);

    private Task<(AssociationHandle A, AssociationHandle B, TestProbe ReaderA, TestProbe ReaderB)> AssociatedPairAsync(out WebSocketTransport a)
    {
        a = _transports.Create();
        return PairAsync(a, _transports.Create());
    }

    private async Task<(AssociationHandle A, AssociationHandle B, TestProbe ReaderA, TestProbe ReaderB)> PairAsync(WebSocketTransport a, WebSocketTransport b)
    {
        (Address addressB, AssociationHandle handleA, AssociationHandle handleB) = await AssociateAsync(a, b);
        TestProbe readerA = CreateTestProbe();
        TestProbe readerB = CreateTestProbe();
        TransportHarness.Read(handleA, readerA);
        TransportHarness.Read(handleB, readerB);
        return (handleA, handleB, readerA, readerB);
    }

    /// <summary>Both transports listen (A's inbound associations go to the test actor); A associates with B.</summary>
    /// <returns>B's address, A's outbound handle and B's inbound one (no read listener registered on either).</returns>
    private async Task<(Address AddressB, AssociationHandle HandleA, AssociationHandle HandleB)> AssociateAsync(WebSocketTransport a, WebSocketTransport b)
    {
        TestProbe inboundB = CreateTestProbe();
        await TransportHarness.ListenAsync(a, TestActor);
        Address addressB = await TransportHarness.ListenAsync(b, inboundB);
        AssociationHandle handleA = await a.Associate(addressB).WaitAsync(Wait);
        return (addressB, handleA, inboundB.ExpectMsg<InboundAssociation>(Wait).Association);
    }
}
