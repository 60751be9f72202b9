using Akka.Actor;
using Akka.Remote.Transport;
using Google.Protobuf;

namespace WebSocketCodec.Akka.PingPong.Loopback;

/// <summary>One end of an in-process association: <see cref="Write"/> hands the payload to the peer end's read
/// listener, in order (one lock per end); payloads that arrive before that listener is registered are held and handed
/// over, in order, when <see cref="AssociationHandle.ReadHandlerSource"/> completes. <see cref="Disassociate()"/>
/// from either end closes both and delivers one <see cref="Disassociated"/> (<see cref="DisassociateInfo.Shutdown"/>)
/// to the other end.</summary>
internal sealed class LoopbackAssociationHandle : AssociationHandle
{
    private readonly Lock _gate = new();
    private readonly LoopbackTransport _owner;
    private Queue<IHandleEvent>? _held = new();
    private IHandleEventListener? _listener;
    private LoopbackAssociationHandle? _peer;
    private int _closed; // shared in meaning with the peer: set on both ends by the first Disassociate

    public LoopbackAssociationHandle(Address localAddress, Address remoteAddress, LoopbackTransport owner)
        : base(localAddress, remoteAddress)
    {
        _owner = owner;
        ReadHandlerSource.Task.ContinueWith(
            static (task, state) => ((LoopbackAssociationHandle)state!).ListenerRegistered(task.Result),
            this,
            CancellationToken.None,
            TaskContinuationOptions.ExecuteSynchronously | TaskContinuationOptions.OnlyOnRanToCompletion,
            TaskScheduler.Default);
    }

    /// <summary>Ties two ends together (before either is handed to Akka).</summary>
    public static void Pair(LoopbackAssociationHandle a, LoopbackAssociationHandle b)
    {
        a._peer = b;
        b._peer = a;
    }

    public override bool Write(ByteString payload)
    {
        if (Volatile.Read(ref _closed) != 0 || _peer is not { } peer)
        {
            return false;
        }

        peer.Deliver(new InboundPayload(payload));
        return true;
    }

    /// <inheritdoc />
    /// <remarks>Akka 1.5 marks this overload obsolete but keeps it abstract: its <c>Disassociate(reason, log)</c> calls it.</remarks>
#pragma warning disable CS0672
    public override void Disassociate() => Close(notifyPeer: true);
#pragma warning restore CS0672

    /// <summary>Closes both ends; the other end's listener gets exactly one <see cref="Disassociated"/>.</summary>
    public void Close(bool notifyPeer)
    {
        LoopbackAssociationHandle? peer = _peer;
        if (Interlocked.Exchange(ref _closed, 1) != 0)
        {
            return;
        }

        _owner.Forget(this);
        if (peer is not null && Interlocked.Exchange(ref peer._closed, 1) == 0)
        {
            peer._owner.Forget(peer);
            if (notifyPeer)
            {
                peer.Deliver(new Disassociated(DisassociateInfo.Shutdown));
            }
        }
    }

    private void Deliver(IHandleEvent message)
    {
        lock (_gate)
        {
            if (_listener is null)
            {
                _held!.Enqueue(message);
                return;
            }

            _listener.Notify(message);
        }
    }

    private void ListenerRegistered(IHandleEventListener listener)
    {
        lock (_gate)
        {
            while (_held!.TryDequeue(out IHandleEvent? message))
            {
                listener.Notify(message);
            }

            _held = null;
            _listener = listener;
        }
    }
}
