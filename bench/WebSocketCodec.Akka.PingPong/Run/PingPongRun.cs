using System.Diagnostics;
using Akka.Actor;
using Akka.Configuration;
using Akka.Event;

namespace WebSocketCodec.Akka.PingPong.Run;

/// <summary>One RemotePingPong run: two fresh actor systems over one transport on 127.0.0.1; the first
/// remote-deploys one echo actor per client into the second, checks that each answers, then every client keeps
/// <see cref="PingPongOptions.Window"/> messages in flight until it has done its round trips.</summary>
public static class PingPongRun
{
    private const string CommonConfig = """
        akka {
          loglevel = WARNING
          stdout-loglevel = WARNING
          log-dead-letters = off
          log-dead-letters-during-shutdown = off
          suppress-json-serializer-warning = on
          actor.provider = remote
          remote.log-remote-lifecycle-events = off
          coordinated-shutdown.run-by-clr-shutdown-hook = off
          # a run ends with every reply in: nothing to flush, no 2 s wait per run
          remote.flush-wait-on-shutdown = 100 ms
        }
        """;

    /// <summary>Runs <paramref name="clients"/> clients over <paramref name="variant"/>; a timeout is a stall, an
    /// exception a failure (both reported in the measurement, never thrown).</summary>
    public static async Task<PingPongMeasurement> RunAsync(string variant, int clients, int repeat, int roundTrips, PingPongOptions options, TestCertificate? certificate, CancellationToken cancellationToken = default)
    {
        var systems = new List<ActorSystem>(2);
        string phase = "start";
        string protocol = "";
        bool? batching = null;
        try
        {
            Config config = ConfigurationFactory.ParseString(options.ExtraConfig)
                .WithFallback(ConfigurationFactory.ParseString(PingPongVariants.RemoteConfig(variant, certificate)))
                .WithFallback(ConfigurationFactory.ParseString(CommonConfig));
            using var setup = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
            setup.CancelAfter(options.SetupTimeout);

            // ActorSystem.Create blocks while remoting binds: off the caller's thread, so the setup timeout holds.
            ActorSystem first = await Task.Run(() => ActorSystem.Create("PingA", config), setup.Token).WaitAsync(setup.Token).ConfigureAwait(false);
            systems.Add(first);
            protocol = ((ExtendedActorSystem)first).Provider.DefaultAddress.Protocol;
            batching = protocol.Contains("tcp", StringComparison.Ordinal) ? first.Settings.Config.GetBoolean("akka.remote.dot-netty.tcp.batching.enabled") : null;
            ActorSystem second = await Task.Run(() => ActorSystem.Create("PingB", config), setup.Token).WaitAsync(setup.Token).ConfigureAwait(false);
            systems.Add(second);
            Address there = ((ExtendedActorSystem)second).Provider.DefaultAddress;

            phase = "deploy";
            var echoes = new IActorRef[clients];
            Props echoProps = Props.Create<EchoActor>().WithDeploy(new Deploy(new RemoteScope(there)));
            for (int i = 0; i < clients; i++)
            {
                echoes[i] = first.ActorOf(echoProps, "echo" + i);
            }

            ActorIdentity[] alive = await Task.WhenAll(echoes.Select((echo, i) => echo.Ask<ActorIdentity>(new Identify(i), options.SetupTimeout, setup.Token))).ConfigureAwait(false);
            if (alive.Any(identity => identity.Subject is null))
            {
                return Result(RunStatus.Failed, "an echo actor did not start in the second system");
            }

            phase = "round trips";
            var done = new Task[clients];
            var clientRefs = new IActorRef[clients];
            for (int i = 0; i < clients; i++)
            {
                var completion = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
                done[i] = completion.Task;
                IActorRef echo = echoes[i];
                clientRefs[i] = first.ActorOf(Props.Create(() => new PingClient(echo, roundTrips, options.Window, completion)), "client" + i);
            }

            using RefusalProbe refusals = RefusalProbe.Start();
            var clock = Stopwatch.StartNew();
            foreach (IActorRef client in clientRefs)
            {
                client.Tell(PingClient.Start);
            }

            await Task.WhenAll(done).WaitAsync(options.RunTimeout, cancellationToken).ConfigureAwait(false);
            clock.Stop();
            double seconds = clock.Elapsed.TotalSeconds;
            long? refused = protocol.StartsWith("akka.ws", StringComparison.Ordinal) ? refusals.Count : null; // ours only
            return Result(RunStatus.Ok, "") with { ElapsedMs = seconds * 1000, MessagesPerSecond = clients * (double)roundTrips * 2 / seconds, Refusals = refused };
        }
        catch (Exception e) when (e is TimeoutException or OperationCanceledException or AskTimeoutException && !cancellationToken.IsCancellationRequested)
        {
            return Result(RunStatus.Stalled, $"timed out in {phase}");
        }
        catch (Exception e) when (!cancellationToken.IsCancellationRequested)
        {
            return Result(RunStatus.Failed, $"{phase}: {e.GetType().Name}: {e.Message}".ReplaceLineEndings(" "));
        }
        finally
        {
            await TerminateAsync(systems).ConfigureAwait(false);
        }

        PingPongMeasurement Result(RunStatus status, string detail) =>
            new() { Variant = variant, Clients = clients, Repeat = repeat, RoundTrips = roundTrips, Status = status, Protocol = protocol, Batching = batching, Detail = detail };
    }

    /// <summary>Terminates the systems, logging off (the side that stops last reports the association it loses as an
    /// error), giving up after 10 s (a stalled transport may never finish; its threads are left behind and the next run
    /// starts anyway).</summary>
    private static async Task TerminateAsync(List<ActorSystem> systems)
    {
        try
        {
            foreach (ActorSystem system in systems)
            {
                system.EventStream.SetLogLevel((LogLevel)int.MaxValue); // above every level: no logger subscribed (Akka's "OFF")
            }

            await Task.WhenAll(systems.Select(system => system.Terminate())).WaitAsync(TimeSpan.FromSeconds(10)).ConfigureAwait(false);
        }
        catch (Exception)
        {
            // reported by the run's status already, or not at all: the measurement is complete
        }
    }
}
