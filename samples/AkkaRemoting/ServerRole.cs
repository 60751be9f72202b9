using System.Runtime.InteropServices;
using Akka.Actor;

namespace WebSocketCodec.Samples.AkkaRemoting;

/// <summary>The server: starts its node with a <see cref="Greeter"/>, prints <c>listening on akka.ws://server@host:port</c>,
/// and runs until Ctrl+C or SIGTERM.</summary>
public static class ServerRole
{
    /// <summary>Runs the server; returns the exit code.</summary>
    public static async Task<int> RunAsync(AkkaRemotingOptions options, CancellationToken cancellation)
    {
        ActorSystem system;
        try
        {
            system = RemotingNode.Start(AkkaRemotingOptions.ServerSystem, options);
        }
        catch (Exception error)
        {
            await Console.Error.WriteLineAsync($"cannot start: {error.GetBaseException().Message}");
            return 1;
        }

        // SIGINT and SIGTERM stop the node gracefully (leaving its associations with Close 1001) instead of killing the
        // process at once.
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(cancellation);
        using PosixSignalRegistration sigint = PosixSignalRegistration.Create(PosixSignal.SIGINT, Stop);
        using PosixSignalRegistration sigterm = PosixSignalRegistration.Create(PosixSignal.SIGTERM, Stop);
        system.ActorOf(Props.Create<Greeter>(), Greeter.Name);
        Console.WriteLine($"listening on {RemotingNode.AddressOf(system)}");
        try
        {
            await Task.Delay(Timeout.Infinite, stop.Token);
        }
        catch (OperationCanceledException)
        {
            // Ctrl+C or SIGTERM
        }

        await system.Terminate();
        Console.WriteLine("stopped");
        return 0;

        void Stop(PosixSignalContext signal)
        {
            signal.Cancel = true; // stop as above, not at once
            stop.Cancel();
        }
    }
}
