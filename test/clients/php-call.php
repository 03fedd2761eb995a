<?php
// Run by test/node/php-client-stub.test.ts: one call of the PHP client against a stub server,
// printed as JSON: what it returned, or the exception it threw, and every PHP warning or notice
// raised on the way. Arguments: the site, `curl` or `wordpress` (wordpress-http.php), and a JSON
// object {"options":[retries, retryDelayS, timeoutS], "call":"<method>", "args":[...]}.
declare(strict_types=1);
error_reporting(E_ALL);
$warnings = [];
set_error_handler(function (int $no, string $text, string $file, int $line) use (&$warnings) {
    if (str_ends_with($file, 'wordpress-http.php')) return true; // the stand-in's own @-silenced
    $warnings[] = "{$text} ({$file}:{$line})";
    return true;
});
if ($argv[2] === 'wordpress') require __DIR__ . '/wordpress-http.php';
require __DIR__ . '/../../clients/php/WalletClient.php';

$spec = json_decode($argv[3], true, 512, JSON_THROW_ON_ERROR);
$wallet = new WalletLedger\WalletClient($argv[1], ['username' => 'admin', 'key' => 'k'], ...$spec['options']);
$out = [];
try {
    $out['result'] = $wallet->{$spec['call']}(...$spec['args']);
} catch (WalletLedger\WalletRefusal $e) {
    $out['thrown'] = ['class' => get_class($e), 'status' => $e->status, 'message' => $e->getMessage(), 'error' => $e->error];
} catch (Throwable $e) {
    $out['thrown'] = ['class' => get_class($e), 'message' => $e->getMessage()];
}
$out['warnings'] = $warnings;
echo json_encode($out, JSON_PRESERVE_ZERO_FRACTION), "\n";
