using System.Reflection;
using Akka.Actor;
using Akka.Configuration;
using Akka.Remote.Transport;
using Google.Protobuf;

namespace WebSocketCodec.Akka.Tests.Infrastructure;

/// <summary>
/// <see cref="WebSocketTransport"/> instances created directly, as Akka.Remote creates them (system and config
/// section), on 127.0.0.1 and a free port; every one is shut down when the harness is disposed.
/// </summary>
public sealed class TransportHarness(ActorSystem system) : IAsyncDisposable
{
    private readonly List<WebSocketTransport> _transports = [];

    /// <summary>A transport whose akka.remote.websocket section holds <paramref name="websocket"/> over the defaults.</summary>
    public WebSocketTransport Create(string websocket = "")
    {
        Config section = ConfigurationFactory.ParseString($"hostname = \"127.0.0.1\"\nport = 0\n{websocket}");
        var transport = new WebSocketTransport(system, section);
        _transports.Add(transport);
        return transport;
    }

    /// <summary>Listens and completes the listener promise with <paramref name="associations"/> (InboundAssociation
    /// events go to that actor).</summary>
    public static async Task<Address> ListenAsync(WebSocketTransport transport, IActorRef associations)
    {
        (Address address, TaskCompletionSource<IAssociationEventListener> promise) = await transport.Listen().WaitAsync(TimeSpan.FromSeconds(20));
        promise.SetResult(new ActorAssociationEventListener(associations));
        return address;
    }

    /// <summary>The handle's events (InboundPayload, Disassociated, UnderlyingTransportError) go to <paramref name="reader"/>.</summary>
    public static void Read(AssociationHandle handle, IActorRef reader) =>
        handle.ReadHandlerSource.SetResult(new ActorHandleEventListener(reader));

    /// <summary>A payload of <paramref name="length"/> bytes (at least 4) that starts with <paramref name="sequence"/>
    /// (little-endian) and continues with bytes derived from it.</summary>
    public static ByteString Numbered(int sequence, int length)
    {
        byte[] bytes = new byte[Math.Max(length, 4)];
        BitConverter.TryWriteBytes(bytes, sequence);
        for (int i = 4; i < bytes.Length; i++)
        {
            bytes[i] = (byte)(sequence * 31 + i);
        }

        return ByteString.CopyFrom(bytes);
    }

    /// <summary>Why the association ended: <see cref="Disassociated"/> keeps it in an internal field (Akka's own
    /// tests read it from inside the assembly), so it is read by reflection here.</summary>
    public static DisassociateInfo InfoOf(Disassociated disassociated) =>
        (DisassociateInfo)typeof(Disassociated).GetField("Info", BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic)!.GetValue(disassociated)!;

    /// <summary>The sequence number <see cref="Numbered"/> wrote.</summary>
    public static int SequenceOf(ByteString payload) => BitConverter.ToInt32(payload.Span);

    public async ValueTask DisposeAsync()
    {
        foreach (WebSocketTransport transport in _transports)
        {
            await transport.Shutdown().WaitAsync(TimeSpan.FromSeconds(20));
        }
    }
}
