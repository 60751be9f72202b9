using Akka.Actor;

namespace WebSocketCodec.Samples.AkkaRemoting;

/// <summary>The client: starts its node, asks the server's <see cref="Greeter"/> <c>--count</c> times, prints every
/// answer (<c>reply N: ...</c>) and exits 0, or 1 when an answer does not come.</summary>
public static class ClientRole
{
    private static readonly TimeSpan AnswerTimeout = TimeSpan.FromSeconds(10);

    /// <summary>Runs the client; returns the exit code.</summary>
    public static async Task<int> RunAsync(AkkaRemotingOptions options, CancellationToken cancellation)
    {
        Address server;
        try
        {
            server = Address.Parse(options.ServerAddressOrDefault());
        }
        catch (Exception error)
        {
            await Console.Error.WriteLineAsync($"--server-address is not an Akka address ({error.Message}): use akka.ws://server@host:port");
            return 1;
        }

        ActorSystem system = RemotingNode.Start(AkkaRemotingOptions.ClientSystem, options);
        try
        {
            Console.WriteLine($"client {RemotingNode.AddressOf(system)} asking {server}");
            ActorSelection greeter = system.ActorSelection(new RootActorPath(server) / "user" / Greeter.Name);
            for (int i = 1; i <= options.Count; i++)
            {
                string answer = await greeter.Ask<string>($"hello {i}", AnswerTimeout, cancellation);
                Console.WriteLine($"reply {i}: {answer}");
            }

            return 0;
        }
        catch (Exception error) when (error is AskTimeoutException or OperationCanceledException)
        {
            await Console.Error.WriteLineAsync($"no answer from {server}: {error.Message}");
            return 1;
        }
        finally
        {
            await system.Terminate();
        }
    }
}
