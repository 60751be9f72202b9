using System.Globalization;
using System.Text.RegularExpressions;
using WebSocketCodec.Packaging.Tests.Infrastructure;
using WebSocketCodec.Testing;
using Xunit.Abstractions;

namespace WebSocketCodec.Packaging.Tests;

/// <summary>
/// The packages as a fresh project consumes them, and every C# block of the docs (README.md, docs/, each package's
/// README; docs/AUTHORING.md) compiled from them: the src/ projects this test run built are packed (no rebuild) with a
/// version no cache can hold into a temporary feed; fresh projects outside the repository (its Directory.Build.props
/// and Directory.Packages.props out of reach) restore them through <c>packageSourceMapping</c> into an empty
/// NUGET_PACKAGES folder and compile each block exactly as printed (<see cref="DocProjects"/>). Then some run: the
/// README's server on 127.0.0.1, whose two endpoints echo the README's client; the reconnecting client; the lean
/// server (on Linux) echoing the client; the two Akka nodes (one asks the other over the websocket transport); the
/// three Akka.Hosting cluster nodes, until all three are up.
/// </summary>
public sealed class DocsConsumerTests(ITestOutputHelper output)
{
    // The program blocks this test runs, by name (the other blocks only compile).
    private const string Server = "readme-server";
    private const string Client = "readme-client";
    private const string Reconnecting = "clients-reconnecting";
    private const string Lean = "lean-transport-echo";
    private const string AkkaNodes = "akka-remote-two-nodes";
    private const string AkkaCluster = "akka-remote-hosting-cluster";

    private static readonly TimeSpan CommandTimeout = TimeSpan.FromMinutes(8);
    private static readonly TimeSpan RunTimeout = TimeSpan.FromMinutes(1);

    [SkippableFact]
    public async Task EveryDocBlockCompilesFromThePackagesAndTheExamplesRun()
    {
        string version = string.Create(
            CultureInfo.InvariantCulture, $"0.0.0-ci.{DateTime.UtcNow:yyyyMMddHHmmss}.{Environment.ProcessId}");
        using var temp = new TempFolder("wsc-consumer");
        string feed = temp.Combine("feed");
        string packagesFolder = temp.Combine("nuget-packages");

        await PackAsync(version, feed, temp.Combine("nuspec"));

        // Nothing above the fresh projects is imported: these end MSBuild's search for Directory.*.props/targets.
        temp.Write("Directory.Build.props", "<Project />\n");
        temp.Write("Directory.Build.targets", "<Project />\n");
        temp.Write("Directory.Packages.props", "<Project />\n");
        output.WriteLine(await ConsumerFeeds.WriteNuGetConfigAsync(temp.Path, feed));
        IReadOnlyList<string> projects = DocProjects.Write(temp, version);
        output.WriteLine($"{projects.Count} projects: " + string.Join(", ", projects));
        temp.Write("consumer.slnx", "<Solution>\n" + string.Concat(projects.Select(p => $"  <Project Path=\"{p}\" />\n")) + "</Solution>\n");

        // The client prints the reply to the text it sends: that text, as the README's snippet writes it.
        Match sent = Regex.Match(DocBlocks.Get(DocBlockKind.Program, Client).Code, "SendTextAsync\\(\"([^\"]+)\"");
        Assert.True(sent.Success, "the README's client is expected to send a string literal with SendTextAsync(\"...\")");
        Match sentAgain = Regex.Match(DocBlocks.Get(DocBlockKind.Program, Reconnecting).Code, "SendTextAsync\\(\"([^\"]+)\"\\);");
        Assert.True(sentAgain.Success, "the reconnecting client is expected to send a string literal with SendTextAsync(\"...\");");
        Match asked = Regex.Match(DocBlocks.Get(DocBlockKind.Program, AkkaNodes).Code, "Ask<string>\\(\"([^\"]+)\"");
        Assert.True(asked.Success, "the Akka nodes are expected to ask with a string literal: Ask<string>(\"...\")");

        var isolated = new Dictionary<string, string> { ["NUGET_PACKAGES"] = packagesFolder };
        (int exitCode, string buildOutput) = await DotnetProcess.RunAsync(
            temp.Path, ["build", "consumer.slnx", "-c", "Release", "--disable-build-servers"], CommandTimeout, isolated);
        string? unreachable = exitCode == 0 ? null : WebSocketCodec.Testing.InstallOutcome.NuGetUnreachableLine(buildOutput);
        Skip.If(unreachable is not null, "the configured NuGet feed is unreachable: " + unreachable);
        Assert.True(exitCode == 0, "every C# block of the docs must compile from the packages:\n" + buildOutput);
        // Restored from this run's feed into the empty folder, not from any cache: the version is this run's own.
        output.WriteLine("restored: " + string.Join(", ", Directory.GetDirectories(packagesFolder).Select(Path.GetFileName)));
        foreach (string package in DocProjects.Packages)
            Assert.True(Directory.Exists(Path.Combine(packagesFolder, package.ToLowerInvariant(), version)), package);

        await using DotnetProcess server = DotnetProcess.Start(
            temp.Path, [temp.Combine(DocProjects.ProgramDll(Server)), "--urls", "http://127.0.0.1:0"]);
        string listening = await server.WaitForLineAsync(
            line => line.Contains("Now listening on: http://127.0.0.1:", StringComparison.Ordinal), RunTimeout);
        var url = new Uri(listening[(listening.IndexOf("http://", StringComparison.Ordinal))..].Trim());

        foreach (string path in new[] { "/echo", "/chat/lobby" })
        {
            (int clientExit, string clientOutput) = await DotnetProcess.RunAsync(
                temp.Path,
                [temp.Combine(DocProjects.ProgramDll(Client)), $"ws://127.0.0.1:{url.Port}{path}"],
                RunTimeout);
            output.WriteLine($"client {path}: exit {clientExit}\n{clientOutput}");
            Assert.True(clientExit == 0, $"client against {path}:\n{clientOutput}\nserver:\n{server.Output}");
            Assert.Equal(sent.Groups[1].Value, clientOutput.Split('\n', StringSplitOptions.RemoveEmptyEntries).LastOrDefault()?.Trim());
        }

        (int reconnectingExit, string reconnectingOutput) = await DotnetProcess.RunAsync(
            temp.Path, [temp.Combine(DocProjects.ProgramDll(Reconnecting)), $"ws://127.0.0.1:{url.Port}/echo"], RunTimeout);
        output.WriteLine($"reconnecting client: exit {reconnectingExit}\n{reconnectingOutput}");
        Assert.True(reconnectingExit == 0, $"the reconnecting client:\n{reconnectingOutput}\nserver:\n{server.Output}");
        Assert.Equal(sentAgain.Groups[1].Value, reconnectingOutput.Split('\n', StringSplitOptions.RemoveEmptyEntries).LastOrDefault()?.Trim());

        if (OperatingSystem.IsLinux())
        {
            await using DotnetProcess lean = DotnetProcess.Start(temp.Path, [temp.Combine(DocProjects.ProgramDll(Lean)), "0"]);
            string leanListening = await lean.WaitForLineAsync(
                line => line.StartsWith("listening on ws://127.0.0.1:", StringComparison.Ordinal), RunTimeout);
            string leanUrl = leanListening["listening on ".Length..].Trim();
            (int leanExit, string leanOutput) = await DotnetProcess.RunAsync(
                temp.Path, [temp.Combine(DocProjects.ProgramDll(Client)), leanUrl], RunTimeout);
            output.WriteLine($"client {leanUrl}: exit {leanExit}\n{leanOutput}");
            Assert.True(leanExit == 0, $"client against the lean server:\n{leanOutput}\nserver:\n{lean.Output}");
            Assert.Equal(sent.Groups[1].Value, leanOutput.Split('\n', StringSplitOptions.RemoveEmptyEntries).LastOrDefault()?.Trim());
        }

        (int akkaExit, string akkaOutput) = await DotnetProcess.RunAsync(
            temp.Path, [temp.Combine(DocProjects.ProgramDll(AkkaNodes))], RunTimeout);
        output.WriteLine($"akka: exit {akkaExit}\n{akkaOutput}");
        Assert.True(akkaExit == 0, "the README's Akka nodes:\n" + akkaOutput);
        Assert.Contains(asked.Groups[1].Value, akkaOutput.Split('\n').Select(line => line.Trim()));

        (int clusterExit, string clusterOutput) = await DotnetProcess.RunAsync(
            temp.Path, [temp.Combine(DocProjects.ProgramDll(AkkaCluster)), FreePorts.Next().ToString(CultureInfo.InvariantCulture)], RunTimeout);
        output.WriteLine($"akka-hosting: exit {clusterExit}\n{clusterOutput}");
        Assert.True(clusterExit == 0, "the README's Akka.Hosting cluster:\n" + clusterOutput);
        Assert.Contains("cluster members: 3", clusterOutput.Split('\n').Select(line => line.Trim()));
    }

    private async Task PackAsync(string version, string feed, string nuspecFolder)
    {
        // The test run built src/ in this configuration (the test project references it), so pack only packs.
        Task<(int ExitCode, string Output)>[] packs = DocProjects.Packages.Select(package => DotnetProcess.RunAsync(
            Repository.Root,
            [
                "pack", Repository.Source(package), "-c", Repository.Configuration, "--no-build", "--disable-build-servers",
                "-p:Version=" + version, "-p:NuspecOutputPath=" + nuspecFolder + "/", "-o", feed,
            ],
            CommandTimeout)).ToArray();
        foreach ((int exitCode, string packOutput) in await Task.WhenAll(packs))
        {
            output.WriteLine(packOutput);
            Assert.True(exitCode == 0, "dotnet pack --no-build:\n" + packOutput);
        }
    }
}
