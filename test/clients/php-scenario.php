<?php
// Run by php-client.test.ts: the PHP client's scenario against the server it names, printed as
// JSON for the test to check. Arguments: site, access token, user id, wallet id, the site's
// security code for GET /transactions, a unique prefix, and `wordpress` to send as inside WordPress
// (wp_remote_request, wordpress-http.php) not by curl.
declare(strict_types=1);
if (($argv[7] ?? '') === 'wordpress') require __DIR__ . '/wordpress-http.php';
require __DIR__ . '/../../clients/php/WalletClient.php';

use WalletLedger\{AlreadyExists, InsufficientBalance, WalletClient};

[, $site, $token, $userId, $walletId, $securityCode, $prefix] = $argv;
$wallet = new WalletClient($site, ['token' => $token]);
$userId = (int) $userId;
$out = [];
$out['credit'] = $wallet->credit($userId, $walletId, '25.00', "{$prefix}-order", 'Sale');
try {
    $wallet->credit($userId, $walletId, '25.00', "{$prefix}-order", 'Sale');
    $out['repeat'] = 'not refused';
} catch (AlreadyExists $e) {
    $out['repeat'] = ['class' => 'AlreadyExists', 'status' => $e->status, 'message' => $e->getMessage(), 'error' => $e->error];
}
$out['balance'] = $wallet->balance($userId, $walletId);
$out['history'] = $wallet->transactions($userId, ['wallet_id' => $walletId, 'security_code' => $securityCode], 1, 10);
$hold = $wallet->placeHold($userId, $walletId, '10', "{$prefix}-hold");
$out['hold'] = $hold;
$out['capture'] = $wallet->captureHold($hold['hold_id'], '4.00');
try {
    $wallet->debit($userId, $walletId, '1000', "{$prefix}-debit");
    $out['refusal'] = 'not refused';
} catch (InsufficientBalance $e) {
    $out['refusal'] = ['class' => 'InsufficientBalance', 'status' => $e->status, 'message' => $e->getMessage()];
}
$out['wp_remote_calls'] = $GLOBALS['wp_remote_calls'] ?? 0;
echo json_encode($out), "\n";
