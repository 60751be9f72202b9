using System.Buffers;
using Akka.Remote.Transport;
using Google.Protobuf;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.Akka;

/// <summary>
/// The inbound side of one association: every binary websocket message is one Akka PDU, handed to the handle's read
/// listener as an <see cref="InboundPayload"/>. Until Akka registers that listener, the messages of the current read
/// are held and the next read waits (reads pause: nothing is dropped, and the peer is held back by TCP). When the
/// websocket ends, the listener gets exactly one <see cref="Disassociated"/> after everything read before it, even
/// when it registers after the end.
/// </summary>
internal sealed class AssociationReader : IWebSocketFrameListener, IDisposable
{
    private readonly WebSocketAssociationHandle _handle;
    private readonly MessageAssembler _assembler;
    private readonly object _gate = new();
    private IHandleEventListener? _listener; // read loop only, once registered
    private IHandleEventListener? _registered; // under _gate: what Akka registered (any thread)
    private List<ByteString>? _held; // under _gate
    private IHandleEvent[]? _ending; // under _gate: the last events, once the websocket ended
    private bool _endDelivered; // under _gate

    public AssociationReader(WebSocketAssociationHandle handle, ArrayPool<byte> pool)
    {
        _handle = handle;
        _assembler = new MessageAssembler(pool);
        handle.ReadHandlerSource.Task.ContinueWith(
            static (task, state) => ((AssociationReader)state!).Registered(task), this, CancellationToken.None,
            TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
    }

    public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
    {
        if (!_assembler.TryComplete(opcode, fin, payload, out bool isText, out ReadOnlySpan<byte> message))
        {
            return; // a fragment: joined in the assembler's pooled buffer
        }

        if (isText)
        {
            // Akka PDUs are binary messages; anything else is not from a peer of this transport.
            _handle.Close(CloseStatus.UnsupportedData, "Akka remoting takes binary messages only");
            return;
        }

        Deliver(ByteString.CopyFrom(message)); // the copy Akka's immutable ByteString requires
    }

    public ValueTask OnReadCompleteAsync(CancellationToken cancellationToken)
    {
        if (_listener is not null)
        {
            return default;
        }

        Task<IHandleEventListener> registered = _handle.ReadHandlerSource.Task;
        return registered.IsCompletedSuccessfully ? TakeListener(registered.Result) : WaitForListenerAsync(registered, cancellationToken);
    }

    public void OnClose(WebSocketCloseInfo info)
    {
        Dispose();
        IHandleEvent[] ending = EndingEvents(info);
        _handle.Ended(info);
        IHandleEventListener? listener;
        lock (_gate)
        {
            _ending = ending;
            listener = _listener ?? _registered;
            if (listener is null)
            {
                return; // Registered delivers the held payloads and the end
            }
        }

        DeliverEnd(listener);
    }

    /// <summary>Returns the assembler's pooled buffer (when the websocket ends).</summary>
    public void Dispose() => _assembler.Dispose();

    /// <summary>How Akka's own TCP transport reports an ended connection: a clean close (either side) or a reset is
    /// Disassociated(Shutdown), anything else Disassociated(Unknown); a failure is reported as an
    /// <see cref="UnderlyingTransportError"/> first.</summary>
    internal static IHandleEvent[] EndingEvents(WebSocketCloseInfo info)
    {
        bool clean = info.EndReason == WebSocketEndReason.Closed
            && (info.Status is CloseStatus.NormalClosure or CloseStatus.GoingAway);
        var disassociated = new Disassociated(clean ? DisassociateInfo.Shutdown : DisassociateInfo.Unknown);
        return info.EndReason is WebSocketEndReason.Error or WebSocketEndReason.ProtocolViolation
            ? [new UnderlyingTransportError(info.Error ?? new IOException(info.ToString()), $"websocket association failed: {info}"), disassociated]
            : [disassociated];
    }

    private void Deliver(ByteString payload)
    {
        if (_listener is { } listener)
        {
            listener.Notify(new InboundPayload(payload));
            return;
        }

        lock (_gate)
        {
            (_held ??= []).Add(payload); // OnReadCompleteAsync then waits for the listener before the next read
        }
    }

    private ValueTask TakeListener(IHandleEventListener listener)
    {
        List<ByteString>? held;
        lock (_gate)
        {
            held = _held;
            _held = null;
        }

        if (held is not null)
        {
            foreach (ByteString payload in held)
            {
                listener.Notify(new InboundPayload(payload));
            }
        }

        _listener = listener;
        return default;
    }

    private async ValueTask WaitForListenerAsync(Task<IHandleEventListener> registered, CancellationToken cancellationToken)
    {
        IHandleEventListener listener = await registered.WaitAsync(cancellationToken).ConfigureAwait(false);
        await TakeListener(listener).ConfigureAwait(false);
    }

    /// <summary>Akka registered the read listener (any thread). If the websocket has ended already, the held payloads
    /// and the end go to it now; otherwise the read loop hands them over.</summary>
    private void Registered(Task<IHandleEventListener> task)
    {
        if (!task.IsCompletedSuccessfully)
        {
            return;
        }

        lock (_gate)
        {
            _registered = task.Result;
            if (_ending is null)
            {
                return;
            }
        }

        DeliverEnd(task.Result);
    }

    private void DeliverEnd(IHandleEventListener listener)
    {
        List<ByteString>? held;
        IHandleEvent[] ending;
        lock (_gate)
        {
            if (_endDelivered || _ending is null)
            {
                return;
            }

            _endDelivered = true;
            held = _held;
            _held = null;
            ending = _ending;
        }

        if (held is not null)
        {
            foreach (ByteString payload in held)
            {
                listener.Notify(new InboundPayload(payload));
            }
        }

        foreach (IHandleEvent ev in ending)
        {
            listener.Notify(ev);
        }
    }
}
