using System.Collections.Concurrent;
using Akka.Actor;
using Akka.Configuration;
using Akka.Remote.Transport;
using Google.Protobuf;
using WebSocketCodec.Akka.PingPong.Loopback;

namespace WebSocketCodec.Bench.Tests.AkkaPingPong;

/// <summary>The loopback transport keeps the transport contract the ceiling run relies on: the other side sees the
/// inbound association; payloads written before its read listener is registered are held and arrive in order after;
/// a disassociation reaches the other side exactly once as <see cref="DisassociateInfo.Shutdown"/>, and writes after it
/// are refused; nobody listening is an <see cref="InvalidAssociationException"/>.</summary>
public sealed class LoopbackTransportTests : IDisposable
{
    private readonly ActorSystem _system = ActorSystem.Create("loopback-tests");

    [Fact]
    public async Task HeldPayloadsArriveInOrderAndOneDisassociatedFollows()
    {
        var config = ConfigurationFactory.ParseString("hostname = \"127.0.0.1\", port = 0");
        var a = new LoopbackTransport(_system, config);
        var b = new LoopbackTransport(_system, config);
        (Address _, TaskCompletionSource<IAssociationEventListener> aListener) = await a.Listen();
        (Address bAddress, TaskCompletionSource<IAssociationEventListener> bListener) = await b.Listen();
        aListener.SetResult(new Associations());
        var inbound = new Associations();
        bListener.SetResult(inbound);

        AssociationHandle outbound = await a.Associate(bAddress).WaitAsync(TimeSpan.FromSeconds(10));
        AssociationHandle accepted = await inbound.First.Task.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.Equal(outbound.LocalAddress, accepted.RemoteAddress);
        Assert.Equal(bAddress, accepted.LocalAddress);

        for (int i = 0; i < 100; i++)
        {
            Assert.True(outbound.Write(ByteString.CopyFrom([(byte)i])));
        }

        var events = new Events();
        accepted.ReadHandlerSource.SetResult(events); // after the writes: they were held
        Assert.True(outbound.Write(ByteString.CopyFrom([100])));
        outbound.ReadHandlerSource.SetResult(new Events());
#pragma warning disable CS0618 // Akka 1.5's Disassociate(): the overload with a reason needs a logging adapter
        outbound.Disassociate();
        outbound.Disassociate();
        accepted.Disassociate();
#pragma warning restore CS0618

        Assert.False(outbound.Write(ByteString.CopyFrom([101])));
        IHandleEvent[] received = [.. events.Received];
        Assert.Equal(Enumerable.Range(0, 101).Select(i => (byte)i), received.OfType<InboundPayload>().Select(p => p.Payload[0]));
        Assert.Equal(DisassociateInfo.Shutdown, InfoOf(Assert.IsType<Disassociated>(received[^1])));
        Assert.Single(received.OfType<Disassociated>());
        Assert.True(await a.Shutdown());
        Assert.True(await b.Shutdown());
    }

    [Fact]
    public async Task AssociatingWithNobodyIsAnInvalidAssociation()
    {
        var a = new LoopbackTransport(_system, ConfigurationFactory.ParseString("hostname = \"127.0.0.1\", port = 0"));
        await a.Listen();
        await Assert.ThrowsAsync<InvalidAssociationException>(() => a.Associate(new Address("loopback", "nobody", "127.0.0.1", 1)));
        await a.Shutdown();
    }

    /// <summary>Akka keeps <see cref="Disassociated"/>'s reason internal (a field named Info).</summary>
    private static DisassociateInfo InfoOf(Disassociated disassociated) =>
        (DisassociateInfo)typeof(Disassociated).GetField("Info", System.Reflection.BindingFlags.Instance | System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Public)!.GetValue(disassociated)!;

    public void Dispose() => _system.Terminate().Wait(TimeSpan.FromSeconds(10));

    private sealed class Associations : IAssociationEventListener
    {
        public TaskCompletionSource<AssociationHandle> First { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public void Notify(IAssociationEvent ev) => First.TrySetResult(((InboundAssociation)ev).Association);
    }

    private sealed class Events : IHandleEventListener
    {
        public ConcurrentQueue<IHandleEvent> Received { get; } = new();

        public void Notify(IHandleEvent ev) => Received.Enqueue(ev);
    }
}
