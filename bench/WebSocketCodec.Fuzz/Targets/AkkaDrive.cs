using System.Buffers;
using System.IO.Pipelines;
using System.Reflection;
using Akka.Actor;
using Akka.Configuration;
using Akka.Remote.Transport;
using WebSocketCodec.Akka;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.Fuzz;

/// <summary>What one drive of the association reader gave Akka: the payloads and the ending events, in order.</summary>
/// <param name="Events">Each event: a payload's bytes as hex, or the ending event's description.</param>
/// <param name="Info">How the websocket ended.</param>
public sealed record AkkaTrace(List<string> Events, WebSocketCloseInfo Info)
{
    /// <summary>A one-line summary.</summary>
    public string Outcome => $"{Info.EndReason} {Info.Violation} sent {Info.SentStatus?.ToString() ?? "-"}";
}

/// <summary>
/// Drives the Akka association reader (<see cref="AssociationReader"/>) as the transport does: a
/// <see cref="WebSocketConnection"/> over in-memory pipes runs with the reader as its listener, the input is written
/// in pieces and the pipe completed (the peer's end), and Akka's read listener is registered before the run or only
/// after all the input is in (the reader then holds the payloads and pauses). One actor system and transport (logging
/// off) serve every drive.
/// </summary>
public static class AkkaDrive
{
    private static readonly Lazy<(ActorSystem System, WebSocketTransport Transport)> Shared = new(() =>
    {
        var system = ActorSystem.Create("fuzz", ConfigurationFactory.ParseString("akka.loglevel = OFF\nakka.stdout-loglevel = OFF"));
        return (system, new WebSocketTransport(system, ConfigurationFactory.ParseString("hostname = \"127.0.0.1\"\nport = 0")));
    });

    private static readonly Address Local = new("akka.ws", "fuzz", "127.0.0.1", 1);
    private static readonly Address Remote = new("akka.ws", "peer", "127.0.0.1", 2);

    /// <summary>Runs <paramref name="input"/>, cut at <paramref name="cuts"/>, through a new association.</summary>
    public static AkkaTrace Run(WebSocketRole role, WebSocketSessionOptions options, byte[] input, int[] cuts, bool registerLate, TimeSpan stall)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(input);
        var inbound = new Pipe(new PipeOptions(pauseWriterThreshold: 0, useSynchronizationContext: false));
        var outbound = new Pipe(new PipeOptions(pauseWriterThreshold: 0, useSynchronizationContext: false));
        var connection = new WebSocketConnection(new DuplexPipe(inbound.Reader, outbound.Writer), role, options with { TimeProvider = FrozenTime.Instance });
        var handle = new WebSocketAssociationHandle(Local, Remote, connection, Shared.Value.Transport, long.MaxValue);
        var listener = new RecordingListener();
        var pool = new BalanceCheckingPool();
        var reader = new AssociationReader(handle, pool);
        if (!registerLate)
        {
            handle.ReadHandlerSource.SetResult(listener);
        }

        Task<WebSocketCloseInfo> run = connection.RunAsync(reader);
        Task drain = DrainAsync(outbound.Reader);
        foreach ((int start, int length) in Splits.Pieces(input.Length, cuts))
        {
            inbound.Writer.Write(input.AsSpan(start, length));
            inbound.Writer.FlushAsync().AsTask().GetAwaiter().GetResult();
        }

        inbound.Writer.Complete();
        if (registerLate)
        {
            handle.ReadHandlerSource.SetResult(listener);
        }

        if (!run.Wait(stall) || !drain.Wait(stall))
        {
            connection.Abort();
            throw new OracleFailureException($"hang: the association did not end within {stall.TotalSeconds:0} s of the input's end");
        }

        WebSocketCloseInfo info = run.Result;
        lock (listener.Events)
        {
            pool.AssertBalanced("after the association ended");
            return new AkkaTrace([.. listener.Events], info);
        }
    }

    private static async Task DrainAsync(PipeReader reader)
    {
        while (true)
        {
            ReadResult read = await reader.ReadAsync().ConfigureAwait(false);
            reader.AdvanceTo(read.Buffer.End);
            if (read.IsCompleted || read.IsCanceled)
            {
                await reader.CompleteAsync().ConfigureAwait(false);
                return;
            }
        }
    }

    private sealed class DuplexPipe(PipeReader input, PipeWriter output) : IDuplexPipe
    {
        public PipeReader Input => input;

        public PipeWriter Output => output;
    }

    /// <summary>Akka's read listener: records what it is told (from any thread).</summary>
    private sealed class RecordingListener : IHandleEventListener
    {
        // Disassociated keeps its reason in an internal field (Akka's own tests read it from inside the assembly).
        private static readonly FieldInfo InfoField =
            typeof(Disassociated).GetField("Info", BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic)!;

        public List<string> Events { get; } = [];

        public void Notify(IHandleEvent ev)
        {
            string text = ev switch
            {
                InboundPayload payload => "payload " + Convert.ToHexString(payload.Payload.Span),
                Disassociated disassociated => "Disassociated " + InfoField.GetValue(disassociated),
                UnderlyingTransportError => "UnderlyingTransportError",
                _ => "unexpected " + ev.GetType().Name,
            };
            lock (Events)
            {
                Events.Add(text);
            }
        }
    }
}
