using System.Globalization;
using System.Text.RegularExpressions;
using WebSocketCodec.Packaging.Tests.Infrastructure;
using WebSocketCodec.Testing;
using Xunit.Abstractions;

namespace WebSocketCodec.Packaging.Tests;

/// <summary>
/// The packages as a fresh project consumes them: the src/ projects this test run built are packed (no rebuild) with a
/// version no cache can hold into a temporary feed; two fresh projects outside the repository (its Directory.Build.props
/// and Directory.Packages.props out of reach) restore them through <c>packageSourceMapping</c> into an empty
/// NUGET_PACKAGES folder, and compile README.md's "server in a few lines" and "client in a few lines" exactly as
/// printed; then the server runs on 127.0.0.1 and the client gets its message echoed by both of the server's endpoints.
/// The README's lean server compiles from the lean package, and the client gets its echo there too (on Linux).
/// A fourth project compiles the README's two Akka nodes from the Akka package and runs them (one asks the other over
/// the websocket transport); a fifth compiles its three Akka.Hosting cluster nodes and runs them until all three are up.
/// </summary>
public sealed class ReadmeConsumerTests(ITestOutputHelper output)
{
    private static readonly string[] Packages = ["WebSocketCodec", "WebSocketCodec.Pipelines", "WebSocketCodec.AspNetCore", "WebSocketCodec.Akka", "WebSocketCodec.Lean"];
    private static readonly TimeSpan CommandTimeout = TimeSpan.FromMinutes(5);
    private static readonly TimeSpan RunTimeout = TimeSpan.FromMinutes(1);
    private const string AkkaClusterHostingVersion = "1.5.73"; // the newest served (Directory.Packages.props)

    [SkippableFact]
    public async Task TheReadmeServersAndClientCompileFromThePackagesAndEcho()
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
        temp.Write("server/Server.csproj", Project("Microsoft.NET.Sdk.Web", "WebSocketCodec.AspNetCore", version));
        temp.Write("server/Program.cs", ReadmeSnippet.Read("server"));
        temp.Write("client/Client.csproj", Project("Microsoft.NET.Sdk", "WebSocketCodec.Pipelines", version));
        string client = ReadmeSnippet.Read("client");
        temp.Write("client/Program.cs", client);
        // The client prints the reply to the text it sends: that text, as the README's snippet writes it.
        Match sent = Regex.Match(client, "SendTextAsync\\(\"([^\"]+)\"");
        Assert.True(sent.Success, "the README's client is expected to send a string literal with SendTextAsync(\"...\")");
        temp.Write("reconnecting/Reconnecting.csproj", Project("Microsoft.NET.Sdk", "WebSocketCodec.Pipelines", version));
        string reconnecting = ReadmeSnippet.Read("reconnecting-client");
        temp.Write("reconnecting/Program.cs", reconnecting);
        Match sentAgain = Regex.Match(reconnecting, "SendTextAsync\\(\"([^\"]+)\"\\);");
        Assert.True(sentAgain.Success, "the README's reconnecting client is expected to send a string literal with SendTextAsync(\"...\");");
        temp.Write("lean/Lean.csproj", Project("Microsoft.NET.Sdk", "WebSocketCodec.Lean", version));
        temp.Write("lean/Program.cs", ReadmeSnippet.Read("lean"));
        temp.Write("nodes/Nodes.csproj", Project("Microsoft.NET.Sdk", "WebSocketCodec.Akka", version));
        string akka = ReadmeSnippet.Read("akka");
        temp.Write("nodes/Program.cs", akka);
        Match asked = Regex.Match(akka, "Ask<string>\\(\"([^\"]+)\"");
        Assert.True(asked.Success, "the README's Akka nodes are expected to ask with a string literal: Ask<string>(\"...\")");
        // Akka.Hosting: three cluster nodes, with Akka.Cluster.Hosting from the machine's feeds beside the package.
        temp.Write("cluster/Cluster.csproj", Project("Microsoft.NET.Sdk", "WebSocketCodec.Akka", version, ("Akka.Cluster.Hosting", AkkaClusterHostingVersion)));
        temp.Write("cluster/Program.cs", ReadmeSnippet.Read("akka-hosting"));
        temp.Write("consumer.slnx", """
            <Solution>
              <Project Path="server/Server.csproj" />
              <Project Path="client/Client.csproj" />
              <Project Path="reconnecting/Reconnecting.csproj" />
              <Project Path="lean/Lean.csproj" />
              <Project Path="nodes/Nodes.csproj" />
              <Project Path="cluster/Cluster.csproj" />
            </Solution>

            """);

        var isolated = new Dictionary<string, string> { ["NUGET_PACKAGES"] = packagesFolder };
        (int exitCode, string buildOutput) = await DotnetProcess.RunAsync(
            temp.Path, ["build", "consumer.slnx", "-c", "Release", "--disable-build-servers"], CommandTimeout, isolated);
        string? unreachable = exitCode == 0 ? null : WebSocketCodec.Testing.InstallOutcome.NuGetUnreachableLine(buildOutput);
        Skip.If(unreachable is not null, "the configured NuGet feed is unreachable: " + unreachable);
        Assert.True(exitCode == 0, "the README's snippets must compile from the packages:\n" + buildOutput);
        // Restored from this run's feed into the empty folder, not from any cache: the version is this run's own.
        output.WriteLine("restored: " + string.Join(", ", Directory.GetDirectories(packagesFolder).Select(Path.GetFileName)));
        foreach (string package in Packages)
            Assert.True(Directory.Exists(Path.Combine(packagesFolder, package.ToLowerInvariant(), version)), package);

        await using DotnetProcess server = DotnetProcess.Start(
            temp.Path, [temp.Combine("server/bin/Release/net10.0/Server.dll"), "--urls", "http://127.0.0.1:0"]);
        string listening = await server.WaitForLineAsync(
            line => line.Contains("Now listening on: http://127.0.0.1:", StringComparison.Ordinal), RunTimeout);
        var url = new Uri(listening[(listening.IndexOf("http://", StringComparison.Ordinal))..].Trim());

        foreach (string path in new[] { "/echo", "/chat/lobby" })
        {
            (int clientExit, string clientOutput) = await DotnetProcess.RunAsync(
                temp.Path,
                [temp.Combine("client/bin/Release/net10.0/Client.dll"), $"ws://127.0.0.1:{url.Port}{path}"],
                RunTimeout);
            output.WriteLine($"client {path}: exit {clientExit}\n{clientOutput}");
            Assert.True(clientExit == 0, $"client against {path}:\n{clientOutput}\nserver:\n{server.Output}");
            Assert.Equal(sent.Groups[1].Value, clientOutput.Split('\n', StringSplitOptions.RemoveEmptyEntries).LastOrDefault()?.Trim());
        }

        (int reconnectingExit, string reconnectingOutput) = await DotnetProcess.RunAsync(
            temp.Path, [temp.Combine("reconnecting/bin/Release/net10.0/Reconnecting.dll"), $"ws://127.0.0.1:{url.Port}/echo"], RunTimeout);
        output.WriteLine($"reconnecting client: exit {reconnectingExit}\n{reconnectingOutput}");
        Assert.True(reconnectingExit == 0, $"the reconnecting client:\n{reconnectingOutput}\nserver:\n{server.Output}");
        Assert.Equal(sentAgain.Groups[1].Value, reconnectingOutput.Split('\n', StringSplitOptions.RemoveEmptyEntries).LastOrDefault()?.Trim());

        if (OperatingSystem.IsLinux())
        {
            await using DotnetProcess lean = DotnetProcess.Start(temp.Path, [temp.Combine("lean/bin/Release/net10.0/Lean.dll"), "0"]);
            string leanListening = await lean.WaitForLineAsync(
                line => line.StartsWith("listening on ws://127.0.0.1:", StringComparison.Ordinal), RunTimeout);
            string leanUrl = leanListening["listening on ".Length..].Trim();
            (int leanExit, string leanOutput) = await DotnetProcess.RunAsync(
                temp.Path, [temp.Combine("client/bin/Release/net10.0/Client.dll"), leanUrl], RunTimeout);
            output.WriteLine($"client {leanUrl}: exit {leanExit}\n{leanOutput}");
            Assert.True(leanExit == 0, $"client against the lean server:\n{leanOutput}\nserver:\n{lean.Output}");
            Assert.Equal(sent.Groups[1].Value, leanOutput.Split('\n', StringSplitOptions.RemoveEmptyEntries).LastOrDefault()?.Trim());
        }

        (int akkaExit, string akkaOutput) = await DotnetProcess.RunAsync(
            temp.Path, [temp.Combine("nodes/bin/Release/net10.0/Nodes.dll")], RunTimeout);
        output.WriteLine($"akka: exit {akkaExit}\n{akkaOutput}");
        Assert.True(akkaExit == 0, "the README's Akka nodes:\n" + akkaOutput);
        Assert.Contains(asked.Groups[1].Value, akkaOutput.Split('\n').Select(line => line.Trim()));

        (int clusterExit, string clusterOutput) = await DotnetProcess.RunAsync(
            temp.Path, [temp.Combine("cluster/bin/Release/net10.0/Cluster.dll"), FreePorts.Next().ToString(CultureInfo.InvariantCulture)], RunTimeout);
        output.WriteLine($"akka-hosting: exit {clusterExit}\n{clusterOutput}");
        Assert.True(clusterExit == 0, "the README's Akka.Hosting cluster:\n" + clusterOutput);
        Assert.Contains("cluster members: 3", clusterOutput.Split('\n').Select(line => line.Trim()));
    }

    private async Task PackAsync(string version, string feed, string nuspecFolder)
    {
        // The test run built src/ in this configuration (the test project references it), so pack only packs.
        Task<(int ExitCode, string Output)>[] packs = Packages.Select(package => DotnetProcess.RunAsync(
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

    /// <summary>What <c>dotnet new web</c> / <c>dotnet new console</c> make, plus the one package reference.</summary>
    private static string Project(string sdk, string package, string version, params (string Id, string Version)[] others) => $"""
        <Project Sdk="{sdk}">
          <PropertyGroup>
            {(sdk == "Microsoft.NET.Sdk" ? "<OutputType>Exe</OutputType>" : "")}
            <TargetFramework>net10.0</TargetFramework>
            <Nullable>enable</Nullable>
            <ImplicitUsings>enable</ImplicitUsings>
          </PropertyGroup>
          <ItemGroup>
            <PackageReference Include="{package}" Version="{version}" />
        {string.Concat(others.Select(other => $"    <PackageReference Include=\"{other.Id}\" Version=\"{other.Version}\" />\n    "))}  </ItemGroup>
        </Project>

        """;
}
