<?php
// Run by test/node/php-client-stub.test.ts: docs/clients.md's WooCommerce example, as written, with
// stand-ins for the WordPress and WooCommerce functions it calls, paying order 1001 of user 7
// against the site given; prints the order's notes and status changes, or what escaped the hook.
declare(strict_types=1);
error_reporting(E_ALL);
set_error_handler(function (int $no, string $text, string $file, int $line) {
    throw new ErrorException($text, 0, $no, $file, $line);
});
define('WALLET_SITE', $argv[1]);
const WALLET_USER = 'admin';
const WALLET_KEY = 'k';
$GLOBALS['order'] = [];
function add_action(string $hook, callable $callback): void { $GLOBALS['hooks'][$hook] = $callback; }
final class StandInOrder
{
    public function get_meta(string $key) { return $key === '_wallet_user_id' ? '7' : ''; }
    public function get_total() { return '12.50'; }
    public function add_order_note(string $note): void { $GLOBALS['order'][] = "note: {$note}"; }
    public function update_status(string $status, string $note = ''): void { $GLOBALS['order'][] = "status: {$status}: {$note}"; }
}
function wc_get_order(int $id): StandInOrder { return new StandInOrder(); }

$docs = file_get_contents(__DIR__ . '/../../docs/clients.md');
preg_match('/```php\n(.*?)```/s', $docs, $block);
eval(str_replace("__DIR__ . '/WalletClient.php'", var_export(__DIR__ . '/../../clients/php/WalletClient.php', true), $block[1]));
try {
    $GLOBALS['hooks']['woocommerce_payment_complete'](1001);
} catch (Throwable $e) {
    $GLOBALS['order'][] = 'escaped: ' . get_class($e);
}
echo json_encode($GLOBALS['order']), "\n";
